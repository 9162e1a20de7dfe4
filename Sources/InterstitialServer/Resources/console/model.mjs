// The operations console's pure parts: the admin API's errors as the operator reads them, a break
// between the editor's fields and the API's JSON, and the live timeline's layout. No DOM, no
// network (tested by Tests/Console/model.test.mjs under node --test).

/** The fields the break editor has inputs for; the others go in its "other fields" JSON. */
export const BREAK_FIELDS = [
  "id",
  "target",
  "at",
  "date",
  "duration",
  "plannedDuration",
  "ad",
  "assetUri",
  "assetList",
];
/** The fields among those that are seconds. */
const NUMBER_FIELDS = new Set(["at", "duration", "plannedDuration"]);

/**
 * What the console says about a failed admin request: the API's code, path and message (its JSON
 * error body), or a plain account of a status without one. A 401 gets the token message.
 * @returns {{status: number, code: string, path: string, message: string, text: string}}
 */
export function describeError(status, body) {
  const error = body && typeof body === "object" && body.error && typeof body.error === "object" ? body.error : {};
  const code = typeof error.code === "string" ? error.code : "";
  const path = typeof error.path === "string" ? error.path : "";
  let message = typeof error.message === "string" ? error.message : "";
  if (status === 401) {
    message =
      "The admin token is missing or wrong" +
      (message ? ` (${message})` : "") +
      ". Enter the token the server was started with (--admin-token or adminToken).";
  } else if (status === 403) {
    message = message || "The server refuses this request.";
  } else if (!message) {
    message = status === 0 ? "The server cannot be reached." : `The server answered ${status}.`;
  }
  const where = path ? `${path}: ` : "";
  const text = `${where}${message}${code ? ` [${code}]` : ""}`;
  return { status, code, path, message, text };
}

/**
 * A break's JSON for the API from the editor: its fields (strings as typed; blanks left out,
 * seconds as numbers) merged with the "other fields" JSON object. A field typed twice is an error.
 * @param {Record<string, string>} fields
 * @param {string} other
 * @returns {{body?: object, error?: {path: string, message: string}}}
 */
export function breakBody(fields, other) {
  const body = {};
  for (const key of BREAK_FIELDS) {
    const text = (fields[key] ?? "").trim();
    if (text === "") continue;
    if (NUMBER_FIELDS.has(key)) {
      const number = Number(text);
      if (!Number.isFinite(number)) return { error: { path: key, message: `expected seconds, found "${text}"` } };
      body[key] = number;
    } else {
      body[key] = text;
    }
  }
  const extra = (other ?? "").trim();
  if (extra !== "") {
    let parsed;
    try {
      parsed = JSON.parse(extra);
    } catch (error) {
      return { error: { path: "other", message: `not JSON: ${error.message}` } };
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      return { error: { path: "other", message: "expected a JSON object of more fields" } };
    }
    for (const [key, value] of Object.entries(parsed)) {
      if (key in body) return { error: { path: key, message: "given both in its field and in the other fields" } };
      body[key] = value;
    }
  }
  return { body };
}

/** The editor's fields and "other fields" JSON of a break the API answered (the inverse of breakBody). */
export function editorFields(item) {
  const fields = {};
  const other = {};
  for (const [key, value] of Object.entries(item)) {
    if (BREAK_FIELDS.includes(key) && (typeof value === "string" || typeof value === "number")) {
      fields[key] = String(value);
    } else {
      other[key] = value;
    }
  }
  return { fields, other: Object.keys(other).length > 0 ? JSON.stringify(other, null, 2) : "" };
}

/** The editor field a JSON error path points at (`cue[0]` → `cue`, in the other fields if not an input). */
export function fieldOfPath(path) {
  const head = /^[A-Za-z0-9_-]*/.exec(path || "")[0];
  if (head === "") return null;
  return BREAK_FIELDS.includes(head) ? head : "other";
}

const milliseconds = (text) => {
  const value = Date.parse(text);
  return Number.isNaN(value) ? null : value;
};

/** How many breaks that left a live channel's window the console still lists. */
export const PAST_BREAKS = 5;

/**
 * The live timeline: the window of the channel's playlist (timeline.json: startDate, the primary's
 * duration), its live edge, and the breaks served, announced or stored, each placed on a span from
 * the window's start to a little past the latest break or the edge (percentages of that span).
 * @param {object} timeline the channel's timeline.json
 * @param {object[]} served /admin/v1/served's entries of the channel
 * @param {object[]} stored /admin/v1/breaks of the channel
 * @param {number} now the wall clock, ms since 1970
 * @param {{cadence?: {every: number, duration: number, offset?: number}, epoch?: string}} schedule the
 *   channel's standing schedule and epoch: its next breaks past the window are drawn too
 */
export function timelineLayout(timeline, served, stored, now, schedule = {}) {
  const start = milliseconds(timeline && timeline.startDate);
  // A live document has no durations: the window is as long as its primary items reach.
  const reach = ((timeline && timeline.items) || [])
    .filter((item) => item.kind === "primary" && Array.isArray(item.primary))
    .reduce((longest, item) => Math.max(longest, Number(item.primary[1]) || 0), 0);
  const length = ((timeline && timeline.durations && timeline.durations.primary) || reach) * 1000;
  if (start === null) return null;
  const edge = start + length;
  const byID = new Map();
  const put = (id, fields) => byID.set(id, { id, ...byID.get(id), ...fields });
  for (const item of stored || []) {
    const date = milliseconds(item.date);
    const seconds = item.duration ?? item.plannedDuration;
    if (date !== null) put(item.id, { start: date, seconds: seconds ?? null, stored: true, ad: item.ad });
  }
  for (const event of (timeline && timeline.events) || []) {
    const date = milliseconds(event.date);
    if (date === null) continue;
    const known = byID.get(event.id)?.seconds;
    put(event.id, {
      start: date,
      seconds: known ?? event.playoutLimit ?? event.playoutDuration ?? null,
      announced: true,
    });
  }
  for (const item of served || []) {
    const date = milliseconds(item.startDate);
    if (date === null) continue;
    const seconds = item.playoutLimit ?? item.duration ?? item.plannedDuration ?? null;
    put(item.id, {
      start: date,
      seconds: seconds ?? byID.get(item.id)?.seconds ?? null,
      served: true,
      withdrawn: Boolean(item.withdrawn),
      playoutLimit: item.playoutLimit ?? null,
      attributes: item.attributes || {},
    });
  }
  for (const next of cadenceStarts(schedule, Math.max(edge, now), 3)) {
    const taken = [...byID.values()].some((item) => Math.abs(item.start - next) < 500);
    if (!taken) put(`scheduled@${new Date(next).toISOString()}`, { start: next, seconds: schedule.cadence.duration });
  }
  const breaks = [...byID.values()].filter((item) => item.start + (item.seconds || 0) * 1000 >= start);
  // Breaks that left the window (an SCTE-35 channel's, signalled as they start, are gone within a
  // window's length): the latest few served are still listed, though not drawn.
  const past = [...byID.values()]
    .filter((item) => item.served && item.start + (item.seconds || 0) * 1000 < start)
    .toSorted((a, b) => a.start - b.start)
    .slice(-PAST_BREAKS)
    .map((item) => ({
      ...item,
      state: item.withdrawn ? "withdrawn" : "over",
      end: item.start + (item.seconds || 0) * 1000,
    }));
  const latest = Math.max(edge, now, ...breaks.map((item) => item.start + (item.seconds || 0) * 1000));
  const end = latest + Math.max(5000, (latest - start) * 0.05);
  const span = end - start;
  const percent = (time) => ((Math.min(Math.max(time, start), end) - start) / span) * 100;
  const placed = breaks
    .toSorted((a, b) => a.start - b.start)
    .map((item) => {
      const stop = item.start + (item.seconds || 0) * 1000;
      let state = "upcoming";
      if (item.withdrawn) state = "withdrawn";
      else if (item.playoutLimit !== null && item.playoutLimit !== undefined) state = "returned";
      else if (item.start <= now && now < stop) state = "on-air";
      else if (stop <= now) state = "over";
      return {
        ...item,
        state,
        end: stop,
        left: percent(item.start),
        width: Math.max(0.5, percent(stop) - percent(item.start)),
      };
    });
  return {
    start,
    end,
    edge,
    windowWidth: percent(edge),
    now: percent(now),
    breaks: placed,
    past,
    onAir: placed.find((item) => item.state === "on-air") || null,
    next: placed.find((item) => item.start > now && item.state === "upcoming") || null,
  };
}

/**
 * The next `count` starts (ms) of a standing schedule's cadence after `after`: epoch + offset + k ×
 * every, k ≥ 0, as the server plans them; none without a cadence or an epoch.
 */
export function cadenceStarts(schedule, after, count) {
  const cadence = schedule && schedule.cadence;
  const epoch = milliseconds(schedule && schedule.epoch);
  if (!cadence || epoch === null || !(cadence.every > 0)) return [];
  const every = cadence.every * 1000;
  const first = epoch + (cadence.offset || 0) * 1000;
  let index = Math.max(0, Math.floor((after - first) / every) + 1);
  const starts = [];
  while (starts.length < count) {
    starts.push(first + index * every);
    index += 1;
  }
  return starts;
}
