// The demo page's interstitial controller: a state machine as a value, no DOM and no I/O.
//
// It follows the execution model of the Swift engine (PlaybackEngine): a primary player and an
// interstitial player, groups of events taken from the server's schedule document (timeline.json,
// the document `hlsi schedule --json` prints), late-bound asset lists, resumption where the schedule
// says, and the navigation rules of docs/behavior-profile.md (R7, R9, R10, R11, R13-R16). It never
// resolves the schedule itself: groups, start points and resumption times come from the server.
//
// `step(state, input)` returns `{ state, actions }`; the driver (player.mjs) performs the actions
// and feeds back what the two <video> elements report. Times are seconds.

/** Times from the server are rounded to the microsecond: two times this close are the same. */
export const EPSILON = 1e-6;
/** How short of an event's playout limit the last reported asset time may be and still end it: the
 * driver reports times every 100 ms. */
const LIMIT_TOLERANCE = 0.05;

/** The groups of a schedule document that play, by start, as the schedule decided them
 * (timeline.json's `groups`: start, resumption, members, playout length), each member resolved to
 * its event. The page never regroups events itself. */
export function groupsOf(document) {
  const events = new Map(document.events.map((event) => [event.id, event]));
  const groups = [];
  for (const group of document.groups || []) {
    const members = group.members.map((id) => events.get(id));
    if (!group.scheduled || !members.length || members.some((event) => !event)) continue;
    groups.push({
      // Fired groups are remembered by key, not by time: a live reload moves times by rounding.
      key: group.members[0],
      at: group.start,
      resume: group.resumeTime,
      pre: group.cue === "PRE",
      post: group.cue === "POST",
      members,
      integrated: group.integrated ?? group.start,
      playoutDuration: group.playoutDuration,
    });
  }
  return groups;
}

/** The first state: nothing playing yet. */
export function initial(document, { live = false } = {}) {
  return {
    mode: "idle",
    live,
    document,
    groups: groupsOf(document),
    playedOnce: [],
    fired: [],
    run: null,
    primaryTime: 0,
    lastTick: null,
  };
}

const has = (list, value) => Array.isArray(list) && list.includes(value);

/** The skip window of an event, `[from, until)` in seconds of the event played, or null (R16). */
export function skipWindow(event, list) {
  const control = (list && list["SKIP-CONTROL"]) || event.skipControl || null;
  if (!control) return null;
  const offset = Number(control.OFFSET ?? control.offset ?? 0);
  const duration = control.DURATION ?? control.duration;
  return [offset, duration === undefined || duration === null ? Infinity : offset + Number(duration)];
}

/** Where the integrated timeline is, for the seek bar. */
export function integratedTime(state) {
  const items = state.document.items;
  if (state.mode === "ended" && state.document.durations.integrated) return state.document.durations.integrated;
  if (state.mode === "interstitial" && state.run) {
    const run = state.run;
    return run.group.integrated + run.groupElapsed + run.eventElapsed;
  }
  for (const item of items) {
    if (
      item.kind === "primary" &&
      state.primaryTime >= item.primary[0] - EPSILON &&
      state.primaryTime <= item.primary[1] + EPSILON
    ) {
      return item.integrated[0] + (state.primaryTime - item.primary[0]);
    }
  }
  return state.primaryTime;
}

/** What the page shows about the current interstitial: id, countdown and skip state. */
export function adStatus(state) {
  const run = state.run;
  if (state.mode !== "interstitial" || !run) return null;
  const event = run.group.members[run.member];
  const remaining = Math.max(0, run.groupDuration - run.groupElapsed - run.eventElapsed);
  const window = skipWindow(event, run.list);
  const skippable = !!window && run.eventElapsed >= window[0] && run.eventElapsed < window[1];
  return {
    id: event.id,
    asset: run.asset,
    assets: run.assets.length,
    remaining,
    skippable,
    skipIn: window && run.eventElapsed < window[0] ? window[0] - run.eventElapsed : null,
    label: event.skipControl && event.skipControl.labelID,
    restricted: has(event.restrictions, "SKIP"),
  };
}

// R10: a live group whose last event has no X-RESUME-OFFSET resumes at its start plus the time
// played, so the delay to the live edge stays constant: primary keeps running, unseen and unheard.
function runsOn(state, group) {
  const last = group.members[group.members.length - 1];
  return state.live && !group.pre && (last.resumeOffset === undefined || last.resumeOffset === null);
}

function startGroup(state, group, { offset = 0, reason = "scheduled" } = {}) {
  const actions = [{ type: "pausePrimary", keepRunning: runsOn(state, group) }];
  const groupDuration = group.playoutDuration;
  state = {
    ...state,
    mode: "interstitial",
    fired: [...state.fired, group.key],
    run: {
      group,
      member: -1,
      asset: 0,
      assets: [],
      list: null,
      groupElapsed: 0,
      eventElapsed: 0,
      groupDuration,
      offset,
      reason,
      played: 0,
    },
  };
  actions.push({ type: "trace", name: "GROUP_STARTED", at: group.at });
  return nextMember(state, actions);
}

// Moves to the next member of the running group, or back to primary when none is left.
function nextMember(state, actions) {
  let run = state.run;
  const previous = run.member >= 0 ? run.group.members[run.member] : null;
  if (previous) {
    actions.push({ type: "trace", name: "INTERSTITIAL_ENDED", id: previous.id });
    run = { ...run, groupElapsed: run.groupElapsed + run.eventElapsed, played: run.played + run.eventElapsed };
  }
  let index = run.member + 1;
  // R9: ONCE events that already started are not scheduled again.
  while (
    index < run.group.members.length &&
    has(run.group.members[index].cue, "ONCE") &&
    state.playedOnce.includes(run.group.members[index].id)
  )
    index += 1;
  if (index >= run.group.members.length) return finishGroup({ ...state, run }, actions);
  const event = run.group.members[index];
  run = { ...run, member: index, asset: 0, assets: [], list: null, eventElapsed: 0, entered: 0 };
  const playedOnce = has(event.cue, "ONCE") ? [...state.playedOnce, event.id] : state.playedOnce;
  state = { ...state, run, playedOnce };
  actions.push({ type: "trace", name: "INTERSTITIAL_STARTED", id: event.id });
  if (event.assetURI) {
    return startAsset(
      { ...state, run: { ...run, assets: [{ URI: event.assetURI, DURATION: event.playoutDuration }] } },
      actions,
    );
  }
  if (event.assetList) {
    // R11: joined inside the event, the asset list request says how far in.
    actions.push({
      type: "fetchList",
      id: event.id,
      url: event.assetList,
      startOffset: index === 0 && run.offset > 0 ? run.offset : null,
    });
    return { state, actions };
  }
  return nextMember(state, actions);
}

function startAsset(state, actions) {
  const run = state.run;
  if (run.asset >= run.assets.length) return nextMember(state, actions);
  const asset = run.assets[run.asset];
  let offset = 0;
  if (run.offset > 0 && run.groupElapsed === 0) {
    // R11: assets wholly before the offset are skipped, the first remaining starts part way in.
    let skipped = 0;
    for (let index = 0; index < run.asset; index += 1) skipped += Number(run.assets[index].DURATION || 0);
    offset = Math.max(0, run.offset - skipped);
    const duration = Number(asset.DURATION || 0);
    if (duration > 0 && offset >= duration) {
      return startAsset(
        { ...state, run: { ...run, asset: run.asset + 1, eventElapsed: run.eventElapsed + duration } },
        actions,
      );
    }
  }
  // `end`: the media position where the asset stops, its DURATION or sooner at the event's
  // X-PLAYOUT-LIMIT (the engine's rule); the beacon tracker counts its quartiles to there.
  const event = run.group.members[run.member];
  const ends = [Number(asset.DURATION) || Infinity];
  if (playoutLimit(event) !== null) ends.push(Math.max(offset, playoutLimit(event) - run.eventElapsed));
  const end = Math.min(...ends);
  actions.push({
    type: "playAsset",
    uri: asset.URI,
    offset,
    end: isFinite(end) ? end : null,
    id: event.id,
    index: run.asset,
  });
  actions.push({ type: "trace", name: "ASSET_STARTED", id: run.group.members[run.member].id, uri: asset.URI });
  const entered = run.offset > 0 && run.groupElapsed === 0 ? offset : run.entered || 0;
  return { state: { ...state, run: { ...run, assetBase: run.eventElapsed, assetOffset: offset, entered } }, actions };
}

function finishGroup(state, actions) {
  const run = state.run;
  const group = run.group;
  actions.push({ type: "stopAsset" });
  actions.push({ type: "trace", name: "GROUP_ENDED", at: group.at });
  if (group.post) {
    return { state: { ...state, mode: "ended", run: null }, actions: [...actions, { type: "ended" }] };
  }
  // R10: live events without X-RESUME-OFFSET resume at start + time played; otherwise where the
  // schedule says (the server's resumeTime, which includes an explicit offset).
  if (runsOn(state, group) && run.pendingSeek === undefined) {
    const resume = group.at + run.played;
    state = { ...state, mode: "primary", run: null, primaryTime: resume };
    actions.push({ type: "playPrimary", at: null, expected: resume });
    return { state, actions };
  }
  const resume = run.pendingSeek !== undefined ? run.pendingSeek : group.resume;
  state = { ...state, mode: "primary", run: null, primaryTime: resume };
  actions.push({ type: "playPrimary", at: resume });
  return { state, actions };
}

// The group that fires at primary time `t` coming from `from` (a crossing during normal play).
function due(state, from, t) {
  for (const group of state.groups) {
    if (group.pre || group.post) continue;
    if (state.fired.includes(group.key)) continue;
    if (group.at > from - EPSILON && group.at <= t + EPSILON) return group;
  }
  return null;
}

/** One input in, the next state and the actions out. */
export function step(state, input) {
  switch (input.type) {
    case "start": {
      // R9: PRE plays before primary playback starts, wherever it starts.
      const pre = state.groups.find((group) => group.pre);
      const at = input.at ?? 0;
      state = { ...state, primaryTime: at };
      if (pre)
        return startGroup(state, { ...pre, at, resume: pre.resume === undefined ? at : Math.max(at, pre.resume) });
      // R11/R26: a start inside a group plays it from the offset.
      const inside = state.groups.find(
        (group) =>
          !group.post &&
          group.at <= at + EPSILON &&
          at < group.at + groupLength(group) - EPSILON &&
          group.at > at - groupLength(group),
      );
      if (inside && at - inside.at > EPSILON)
        return startGroup(state, inside, { offset: at - inside.at, reason: "joined" });
      return { state: { ...state, mode: "primary" }, actions: [{ type: "playPrimary", at }] };
    }
    case "schedule": {
      // A new document (live reload): groups already fired keep their place; the running group
      // takes its members' new attributes (an early return's X-PLAYOUT-LIMIT) and, while the member
      // playing keeps its place, the schedule's new members, resumption and length (an early return
      // ends the group sooner: an event it covered becomes a group of its own).
      const groups = groupsOf(input.document);
      state = { ...state, document: input.document, groups };
      const run = state.run;
      const renewed = run && groups.find((group) => group.key === run.group.key);
      if (state.mode !== "interstitial" || !renewed) return { state, actions: [] };
      const playing = run.group.members[run.member];
      if (run.member >= 0 && renewed.members[run.member]?.id === playing.id) {
        const groupDuration = run.groupDuration - run.group.playoutDuration + renewed.playoutDuration;
        const group = { ...run.group, members: renewed.members, resume: renewed.resume };
        return {
          state: {
            ...state,
            run: { ...run, groupDuration, group: { ...group, playoutDuration: renewed.playoutDuration } },
          },
          actions: [],
        };
      }
      const events = new Map(input.document.events.map((event) => [event.id, event]));
      const members = run.group.members.map((event) => events.get(event.id) || event);
      return { state: { ...state, run: { ...run, group: { ...run.group, members } } }, actions: [] };
    }
    case "tick": {
      if (state.mode !== "primary") return { state, actions: [] };
      const from = state.primaryTime;
      const t = input.primary;
      state = { ...state, primaryTime: t };
      if (t < from - 0.5 || t - from > 2.5) {
        // Live has no seeks: a jump forward is the element's own (its start-up move to the live
        // position, a gap it skipped). A break it jumped into plays from the offset (R11) instead
        // of being passed over.
        const into =
          state.live && t > from
            ? state.groups.find(
                (group) =>
                  !group.pre &&
                  !group.post &&
                  !state.fired.includes(group.key) &&
                  group.at > from - EPSILON &&
                  group.at <= t + EPSILON &&
                  t < group.at + groupLength(group) - EPSILON,
              )
            : null;
        if (into) return startGroup(state, into, { offset: t - into.at, reason: "joined" });
        return { state, actions: [] }; // a seek, not playback
      }
      const group = due(state, from, t);
      if (group) return startGroup(state, group);
      return { state, actions: [] };
    }
    case "primaryEnded": {
      if (state.mode !== "primary") return { state, actions: [] };
      const post = state.groups.find((group) => group.post);
      if (post && !state.fired.includes(post.key)) return startGroup(state, post);
      return { state: { ...state, mode: "ended" }, actions: [{ type: "ended" }] };
    }
    case "listLoaded": {
      const run = state.run;
      if (state.mode !== "interstitial" || !run || run.group.members[run.member].id !== input.id)
        return { state, actions: [] };
      const assets = Array.isArray(input.list && input.list.ASSETS)
        ? input.list.ASSETS.filter((asset) => asset && typeof asset.URI === "string")
        : [];
      // The countdown counts what the list holds once it is known.
      const event = run.group.members[run.member];
      const listed = assets.reduce((sum, asset) => sum + (Number(asset.DURATION) || 0), 0);
      const expected = playoutLimit(event) !== null ? Math.min(playoutLimit(event), listed) : listed;
      const groupDuration =
        listed > 0 ? run.groupDuration - (event.playoutDuration || 0) + expected : run.groupDuration;
      return startAsset({ ...state, run: { ...run, assets, list: input.list, groupDuration } }, []);
    }
    case "listFailed": {
      // R7: an asset-list error cancels the event; primary resumes with offset 0.
      const run = state.run;
      if (state.mode !== "interstitial" || !run || run.group.members[run.member].id !== input.id)
        return { state, actions: [] };
      const actions = [{ type: "trace", name: "ASSET_LIST_ERROR", id: input.id, error: input.error }];
      if (run.group.members.length === 1 && !run.group.post) {
        actions.push({ type: "stopAsset" });
        return {
          state: { ...state, mode: "primary", run: null },
          actions: [...actions, { type: "playPrimary", at: run.group.at }],
        };
      }
      return nextMember(state, actions);
    }
    case "assetTime": {
      const run = state.run;
      if (state.mode !== "interstitial" || !run || run.assetBase === undefined) return { state, actions: [] };
      const eventElapsed = run.assetBase + Math.max(0, input.t - (run.assetOffset || 0));
      state = { ...state, run: { ...run, eventElapsed } };
      // X-PLAYOUT-LIMIT ends the event early, counted from the event's start (R11: a join starts
      // part way in). `hlsi admin return-now` sets it on a live break that is playing.
      const limit = playoutLimit(run.group.members[run.member]);
      if (limit !== null && eventElapsed + (run.entered || 0) >= limit - LIMIT_TOLERANCE) {
        // The asset stops here (its beacons were counted to the limit: it played to its end).
        const id = run.group.members[run.member].id;
        return nextMember(state, [{ type: "stopAsset" }, { type: "trace", name: "PLAYOUT_LIMIT_REACHED", id, limit }]);
      }
      return { state, actions: [] };
    }
    case "assetEnded":
    case "assetFailed": {
      const run = state.run;
      if (state.mode !== "interstitial" || !run) return { state, actions: [] };
      const actions =
        input.type === "assetFailed"
          ? [
              {
                type: "trace",
                name: "ASSET_ERROR",
                uri: run.assets[run.asset] && run.assets[run.asset].URI,
                error: input.error,
              },
            ]
          : [];
      const asset = run.assets[run.asset];
      const played =
        input.type === "assetEnded" && asset && asset.DURATION
          ? run.assetBase + Number(asset.DURATION) - (run.assetOffset || 0)
          : run.eventElapsed;
      return startAsset(
        {
          ...state,
          run: { ...run, asset: run.asset + 1, eventElapsed: Math.max(run.eventElapsed, played), assetBase: undefined },
        },
        actions,
      );
    }
    case "skip": {
      const status = adStatus(state);
      if (!status) return refuse(state, "skip", "no interstitial is playing");
      if (!status.skippable) {
        return refuse(
          state,
          "skip",
          status.skipIn !== null
            ? `skipping is allowed in ${Math.ceil(status.skipIn)} s`
            : "this interstitial has no skip control",
        );
      }
      const actions = [{ type: "stopAsset" }, { type: "trace", name: "INTERSTITIAL_SKIPPED", id: status.id }];
      return nextMember(state, actions);
    }
    case "seek":
      return seek(state, input.integrated);
    default:
      return { state, actions: [] };
  }
}

function groupLength(group) {
  return group.playoutDuration;
}

/** The X-PLAYOUT-LIMIT of an event in seconds, or null. */
export function playoutLimit(event) {
  return typeof event.playoutLimit === "number" && event.playoutLimit >= 0 ? event.playoutLimit : null;
}

function refuse(state, kind, reason) {
  return {
    state,
    actions: [
      { type: "refused", kind, reason },
      { type: "trace", name: "REFUSED", kind, reason },
    ],
  };
}

// A seek on the integrated timeline (a click on the seek bar).
function seek(state, integrated) {
  const items = state.document.items;
  if (state.live) return refuse(state, "seek", "a live stream is watched at its live position");
  if (state.mode === "interstitial") {
    const event = state.run.group.members[state.run.member];
    // R13: SKIP refuses forward seeks while the interstitial plays.
    if (has(event.restrictions, "SKIP") && integrated > integratedTime(state)) {
      return refuse(state, "seek", `${event.id} restricts skipping (X-RESTRICT=SKIP)`);
    }
  }
  const item =
    items.find(
      (candidate) => integrated >= candidate.integrated[0] - EPSILON && integrated < candidate.integrated[1] - EPSILON,
    ) || items[items.length - 1];
  if (!item) return { state, actions: [] };
  let target;
  if (item.kind === "primary") target = item.primary[0] + (integrated - item.integrated[0]);
  else {
    // R15: a seek into an interstitial starts its group from the beginning.
    const group = state.groups.find((candidate) => candidate.members.some((event) => event.id === item.id));
    if (group && group.post) return refuse(state, "seek", "the post-roll plays when the content ends");
    if (group && !group.pre) {
      state = stopRun(state);
      return startGroup(
        { ...state, primaryTime: group.at, fired: state.fired.filter((key) => key !== group.key) },
        group,
        { reason: "seek" },
      );
    }
    target = group ? group.resume : item.primary[1];
  }
  const from = state.mode === "interstitial" ? state.run.group.at : state.primaryTime;
  // R14: crossing JUMP events forward plays the last one crossed first, then completes the seek.
  if (target > from) {
    const crossed = state.groups.filter(
      (group) =>
        !group.pre &&
        !group.post &&
        group.at > from + EPSILON &&
        group.at <= target - EPSILON &&
        group.members.some((event) => has(event.restrictions, "JUMP")),
    );
    const last = crossed[crossed.length - 1];
    if (last && !last.members.every((event) => has(event.cue, "ONCE") && state.playedOnce.includes(event.id))) {
      state = stopRun(state);
      const result = startGroup({ ...state, fired: state.fired.filter((key) => key !== last.key) }, last, {
        reason: "jump",
      });
      if (result.state.run) result.state.run.pendingSeek = target;
      return {
        state: result.state,
        actions: [{ type: "trace", name: "JUMP", id: last.members[0].id, target }, ...result.actions],
      };
    }
  }
  // R15: a seek into [start, resumeTime) of an event with a positive offset plays it from the start.
  const inside = state.groups.find(
    (group) =>
      !group.pre &&
      !group.post &&
      target >= group.at - EPSILON &&
      target < group.resume - EPSILON &&
      group.resume > group.at,
  );
  if (inside) {
    state = stopRun(state);
    return startGroup({ ...state, fired: state.fired.filter((key) => key !== inside.key) }, inside, { reason: "seek" });
  }
  state = stopRun(state);
  // Groups before the target count as fired (normal play does not go back to them); groups after
  // it play again when playback reaches them (ONCE events excepted, R9).
  const fired = state.groups.filter((group) => group.at < target - EPSILON).map((group) => group.key);
  return {
    state: { ...state, mode: "primary", primaryTime: target, fired },
    actions: [{ type: "stopAsset" }, { type: "playPrimary", at: target }],
  };
}

function stopRun(state) {
  if (state.mode !== "interstitial") return state;
  return { ...state, mode: "primary", run: null };
}
