// The operations console at /console: targets, breaks, live channels and metrics of this server,
// all through its admin API (/admin/v1, the bearer token the operator types in) and /metrics. The
// token is kept in sessionStorage only (this tab's session); nothing is fetched from another origin.
import { describeError, breakBody, editorFields, fieldOfPath, timelineLayout, BREAK_FIELDS } from "./model.mjs";
import { adServerRates, parseMetrics, summarize } from "./metrics.mjs";

const TOKEN_KEY = "hlsi-admin-token";
const $ = (id) => document.getElementById(id);

/** An element with attributes (`class`, `data-*`, properties) and children (text or elements). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("data-") || key.startsWith("aria-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
  return node;
}

/** A request the API refused, with its error as the console says it. */
class AdminError extends Error {
  constructor(status, body) {
    const described = describeError(status, body);
    super(described.text);
    this.described = described;
  }
}

const state = { token: null, targets: [], breaks: [], editing: null, timers: [] };

/** An admin API request with the token; the JSON answer, or an AdminError. */
async function admin(method, path, body) {
  const headers = { Authorization: `Bearer ${state.token}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const options = { method, headers, cache: "no-store", credentials: "omit" };
  if (body !== undefined) options.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(`/admin/v1/${path}`, options);
  } catch {
    throw new AdminError(0, null);
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: described by its status */
  }
  if (!response.ok) {
    if (response.status === 401) signedOut(describeError(401, json).text);
    throw new AdminError(response.status, json);
  }
  return json;
}

function signedOut(message) {
  for (const timer of state.timers) clearInterval(timer);
  state.timers = [];
  $("console").hidden = true;
  const note = $("auth-message");
  note.textContent = message;
  note.classList.add("error");
  note.dataset.state = "refused";
}

async function useToken(token) {
  state.token = token;
  const note = $("auth-message");
  if (!token) {
    signedOut("Enter the admin token: the console shows nothing without it.");
    return;
  }
  try {
    await admin("GET", "targets");
  } catch (error) {
    // A refused token is not kept (401 was said by admin()).
    sessionStorage.removeItem(TOKEN_KEY);
    if (error.described && error.described.status !== 401) signedOut(error.message);
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  note.textContent = "Signed in for this tab.";
  note.classList.remove("error");
  note.dataset.state = "ok";
  $("console").hidden = false;
  await refreshAll().catch(reportFailure);
  state.timers.push(setInterval(() => refreshLive().catch(() => {}), 2000));
  state.timers.push(setInterval(() => refreshMetrics().catch(() => {}), 5000));
}

/** A refresh that failed other than by a refused token (which signs out): said in the token's message. */
function reportFailure(error) {
  if (error.described && error.described.status === 401) return;
  const note = $("auth-message");
  note.textContent = `Could not read the server: ${error.message}`;
  note.classList.add("error");
}

async function refreshAll() {
  await refreshTargets();
  await refreshBreaks();
  await Promise.all([refreshLive(), refreshMetrics()]);
}

// Targets

function summary(value) {
  return value === undefined ? "—" : el("pre", {}, JSON.stringify(value, null, 1));
}

async function refreshTargets() {
  const data = await admin("GET", "targets");
  state.targets = data.targets || [];
  const body = $("targets-body");
  body.replaceChildren(
    ...state.targets.map((item) =>
      el(
        "tr",
        { "data-target": item.target },
        el("td", {}, el("code", {}, item.target)),
        el("td", {}, el("code", {}, item.url)),
        el("td", {}, summary(item.schedule)),
        el(
          "td",
          {},
          item.adServer ? summary(item.adServer) : "the inventory",
          item.adServerFrom ? el("div", {}, `(from the ${item.adServerFrom})`) : null,
        ),
        el("td", {}, item.breaks),
      ),
    ),
  );
  const select = $("bf-target");
  const chosen = select.value;
  select.replaceChildren(...state.targets.map((item) => el("option", { value: item.target }, item.target)));
  if (chosen) select.value = chosen;
}

// Breaks

function when(item) {
  if (item.date) return item.date;
  if (item.at !== undefined) return `${item.at} s`;
  if (item.cue) return String(item.cue);
  return "—";
}

async function refreshBreaks() {
  const data = await admin("GET", "breaks");
  state.breaks = data.breaks || [];
  $("breaks-body").replaceChildren(
    ...state.breaks.map((item) => {
      const edit = el("button", { type: "button", class: "edit" }, "Edit");
      edit.addEventListener("click", () => startEditing(item));
      const remove = el("button", { type: "button", class: "delete" }, "Delete");
      remove.addEventListener("click", () => deleteBreak(item.id));
      return el(
        "tr",
        { "data-break": item.id },
        el("td", {}, el("code", {}, item.id)),
        el("td", {}, item.target),
        el("td", {}, when(item)),
        el("td", {}, item.duration ?? item.plannedDuration ?? "—"),
        el("td", {}, item.ad ?? "—"),
        el("td", {}, edit, " ", remove),
      );
    }),
  );
}

function clearBreakError() {
  $("break-error").hidden = true;
  $("break-error").textContent = "";
  for (const key of [...BREAK_FIELDS, "other"]) $(`bf-${key}`).removeAttribute("aria-invalid");
}

function showBreakError(path, text) {
  const box = $("break-error");
  box.textContent = text;
  box.hidden = false;
  const field = fieldOfPath(path);
  if (field) $(`bf-${field}`).setAttribute("aria-invalid", "true");
}

function startEditing(item) {
  clearBreakError();
  state.editing = item ? item.id : null;
  const { fields, other } = item ? editorFields(item) : { fields: {}, other: "" };
  for (const key of BREAK_FIELDS) {
    if (key === "target") continue;
    $(`bf-${key}`).value = fields[key] ?? "";
  }
  if (fields.target) $("bf-target").value = fields.target;
  $("bf-other").value = other;
  $("bf-id").readOnly = Boolean(item);
  $("break-form-title").textContent = item ? `Edit break ${item.id}` : "New break";
  $("break-save").textContent = item ? "Save" : "Create";
  $("break-done").textContent = "";
}

async function saveBreak(event) {
  event.preventDefault();
  clearBreakError();
  const fields = {};
  for (const key of BREAK_FIELDS) fields[key] = $(`bf-${key}`).value;
  const made = breakBody(fields, $("bf-other").value);
  if (made.error) {
    showBreakError(made.error.path, `${made.error.path}: ${made.error.message}`);
    return;
  }
  try {
    const saved = state.editing
      ? await admin("PUT", `breaks/${encodeURIComponent(state.editing)}`, made.body)
      : await admin("POST", "breaks", made.body);
    const verb = state.editing ? "Saved" : "Created";
    startEditing(saved);
    $("break-done").textContent = `${verb} break ${saved.id}.`;
  } catch (error) {
    if (!error.described) throw error;
    showBreakError(error.described.path, error.message);
    return;
  }
  await Promise.all([refreshBreaks(), refreshTargets()]).catch(reportFailure);
}

async function deleteBreak(id) {
  clearBreakError();
  try {
    await admin("DELETE", `breaks/${encodeURIComponent(id)}`);
    $("break-done").textContent = `Deleted break ${id}.`;
    if (state.editing === id) startEditing(null);
  } catch (error) {
    if (!error.described) throw error;
    showBreakError(error.described.path, error.message);
    return;
  }
  await Promise.all([refreshBreaks(), refreshTargets()]).catch(reportFailure);
}

// Live channels

const channels = new Map(); // id → {card, parts}

function channelCard(target) {
  const id = target.target.slice("live/".length);
  if (channels.has(id)) return channels.get(id);
  const duration = el("input", { class: "duration", value: "30", inputMode: "decimal", size: 5 });
  const breakID = el("input", { class: "break-id", placeholder: "(generated)", size: 14 });
  const now = el("button", { type: "button", class: "break-now" }, "Break now");
  const back = el("button", { type: "button", class: "return-now" }, "Return now");
  const message = el("p", { class: "message live-message", role: "status" });
  const parts = {
    timeline: el("div", { class: "timeline", "aria-label": `live window of ${id}` }),
    scale: el("div", { class: "scale" }),
    status: el("p", { class: "live-status" }),
    rows: el("tbody", {}),
    message,
  };
  const card = el(
    "div",
    { class: "channel", "data-channel": id },
    el("h3", {}, `${target.target} `, el("code", {}, target.url)),
    parts.timeline,
    parts.scale,
    parts.status,
    el(
      "div",
      { class: "controls" },
      el("label", {}, "Duration (s)", duration),
      el("label", {}, "ID", breakID),
      now,
      back,
    ),
    message,
    el(
      "table",
      {},
      el(
        "thead",
        {},
        el("tr", {}, ...["Break", "Start", "Length", "State", "Served to every viewer"].map((t) => el("th", {}, t))),
      ),
      parts.rows,
    ),
  );
  now.addEventListener("click", async () => {
    const body = {};
    const seconds = Number(duration.value);
    if (duration.value.trim() !== "") body.duration = Number.isFinite(seconds) ? seconds : duration.value;
    if (breakID.value.trim() !== "") body.id = breakID.value.trim();
    await live(id, message, "POST", `channels/${encodeURIComponent(id)}/breaks`, body, (made) => {
      return `Break ${made.id} starts at ${made.date} (${body.duration ?? "default"} s).`;
    });
  });
  back.addEventListener("click", async () => {
    await live(id, message, "POST", `channels/${encodeURIComponent(id)}/return`, {}, (done) => {
      return `Break ${done.id} returns early: X-PLAYOUT-LIMIT=${done.playoutLimit} from ${done.start}.`;
    });
  });
  const entry = { card, parts, url: target.url };
  channels.set(id, entry);
  $("channels").append(card);
  return entry;
}

async function live(id, message, method, path, body, say) {
  message.classList.remove("error");
  try {
    const answer = await admin(method, path, body);
    message.textContent = say(answer);
    message.dataset.state = "ok";
  } catch (error) {
    if (!error.described) throw error;
    message.textContent = error.message;
    message.classList.add("error");
    message.dataset.state = "refused";
  }
  await Promise.all([refreshLive(), refreshBreaks()]).catch(reportFailure);
}

const clock = (ms) => new Date(ms).toISOString().slice(11, 19);

async function refreshLive() {
  const liveTargets = state.targets.filter((item) => item.kind === "live");
  if (liveTargets.length === 0) {
    $("channels").replaceChildren(el("p", {}, "This server has no live channel."));
    return;
  }
  await Promise.all(
    liveTargets.map(async (target) => {
      const entry = channelCard(target);
      const served = (await admin("GET", `served?target=${encodeURIComponent(target.target)}&limit=50`)).served;
      const base = target.url.slice(0, target.url.lastIndexOf("/"));
      let timeline = null;
      try {
        const response = await fetch(`${base}/timeline.json`, { cache: "no-store", credentials: "omit" });
        if (response.ok) timeline = await response.json();
      } catch {
        /* drawn without the window */
      }
      const layout = timelineLayout(
        timeline,
        served || [],
        state.breaks.filter((item) => item.target === target.target),
        Date.now(),
        { cadence: target.schedule && target.schedule.cadence, epoch: target.epoch },
      );
      drawChannel(entry, layout, target.signals);
    }),
  );
}

function drawChannel(entry, layout, signals) {
  const { parts } = entry;
  if (!layout) {
    parts.status.textContent = "The channel's timeline.json cannot be read now.";
    return;
  }
  const windowBox = el("div", { class: "window", title: "the live window" });
  windowBox.style.width = `${layout.windowWidth}%`;
  const now = el("div", { class: "now", title: "now" });
  now.style.left = `${layout.now}%`;
  const boxes = layout.breaks.map((item) => {
    const box = el("div", { class: `break ${item.state}`, "data-break": item.id, title: `${item.id}: ${item.state}` });
    box.style.left = `${item.left}%`;
    box.style.width = `${item.width}%`;
    box.textContent = item.id;
    return box;
  });
  parts.timeline.replaceChildren(windowBox, ...boxes, now);
  parts.scale.replaceChildren(el("span", {}, clock(layout.start)), el("span", {}, clock(layout.end)));
  const onAir = layout.onAir ? `On air: ${layout.onAir.id} until ${clock(layout.onAir.end)}. ` : "Primary content. ";
  const next = layout.next
    ? `Next break: ${layout.next.id} at ${clock(layout.next.start)}.`
    : signals
      ? `No break known ahead: the channel signals its breaks (${signals}) as they start.`
      : "No break ahead.";
  parts.status.textContent = onAir + next;
  parts.status.dataset.onAir = layout.onAir ? layout.onAir.id : "";
  parts.rows.replaceChildren(
    ...[...layout.past, ...layout.breaks].map((item) => {
      const attributes = Object.entries(item.attributes || {})
        .filter(([name]) => !["ID", "CLASS", "START-DATE"].includes(name))
        .map(([name, value]) => `${name}=${value}`);
      // An early return's limit is added to the date range after its first serving.
      if (item.playoutLimit !== null && item.playoutLimit !== undefined) {
        attributes.push(`X-PLAYOUT-LIMIT=${item.playoutLimit}`);
      }
      return el(
        "tr",
        { "data-break": item.id, "data-state": item.state },
        el("td", {}, el("code", {}, item.id)),
        el("td", {}, new Date(item.start).toISOString()),
        el("td", {}, item.seconds === null ? "—" : `${item.seconds} s`),
        el("td", { class: "state" }, item.state),
        el(
          "td",
          {},
          item.served
            ? el("code", {}, attributes.join(", "))
            : item.stored || item.announced
              ? "not served yet"
              : "by the standing schedule",
        ),
      );
    }),
  );
}

// Metrics

const percent = (rate) => (rate === null ? "—" : `${(rate * 100).toFixed(1)} %`);
const ms = (seconds) => (seconds === null ? "—" : `${(seconds * 1000).toFixed(0)} ms`);
const counts = (object) =>
  Object.keys(object).length === 0
    ? "none"
    : Object.entries(object)
        .map(([key, value]) => `${key || "—"}: ${value}`)
        .join(", ");

async function refreshMetrics() {
  const box = $("metrics-error");
  let text;
  try {
    const response = await fetch("/metrics", {
      headers: { Authorization: `Bearer ${state.token}` },
      cache: "no-store",
      credentials: "omit",
    });
    text = await response.text();
    if (!response.ok) {
      let body = null;
      try {
        body = JSON.parse(text);
      } catch {
        /* described by its status */
      }
      throw new AdminError(response.status, body);
    }
  } catch (error) {
    box.textContent = error.message;
    box.hidden = false;
    return;
  }
  box.hidden = true;
  const families = parseMetrics(text);
  const figures = summarize(families);
  const rows = [
    ["Fill rate", `${percent(figures.fill.rate)} (${figures.fill.filled} of ${figures.fill.requests} asset lists)`],
    ...figures.fill.byTarget.map((item) => [
      `Fill rate, ${item.target}`,
      `${percent(item.rate)} (${item.filled} of ${item.requests})`,
    ]),
    ["Ads in asset lists", figures.ads],
    [
      "Asset-list latency (VAST decisions)",
      `${figures.latency.count} decisions; mean ${ms(figures.latency.mean)}, median ${ms(figures.latency.p50)}, ` +
        `95th percentile ${ms(figures.latency.p95)}`,
    ],
    ["Ad-server answers (VAST/VMAP documents)", figures.adServer.documents],
    ["Ad-server errors (VAST codes)", counts(figures.adServer.errors)],
    ["Ad-server timeouts", figures.adServer.timeouts],
    ["Ad-server requests not made", counts(figures.adServer.shed)],
    ["Decisions by path (prefetch, fallback, ...)", counts(figures.decisions)],
    ["Prefetch", `${figures.prefetch.kept} kept; ${counts(figures.prefetch.events)}`],
    ...Object.keys(figures.standing.expectedBreak).map((target) => [
      `Standing decisions, ${target}`,
      `${figures.standing.kept[target] ?? 0} kept; expected break ${figures.standing.expectedBreak[target]} s`,
    ]),
    ["Beacons seen", counts(figures.beacons.seen)],
    ["Beacons dropped", counts(figures.beacons.dropped)],
    ["Tracking requests sent", counts(figures.tracking)],
    ...adServerRows(adServerRates(families)),
  ];
  $("metrics-body").replaceChildren(
    ...rows.flatMap(([name, value]) => [el("dt", {}, name), el("dd", { "data-metric": name }, String(value))]),
  );
  $("metrics-when").textContent = `at ${new Date().toISOString().slice(11, 19)}`;
}

/** One row per ad server: the rate its gate lets through (learned, or its maxPerSecond). */
function adServerRows(gates) {
  return gates.map((gate) => [
    `Ad server ${gate.adServer}`,
    `${gate.perSecond === null ? "–" : `${gate.perSecond}/s`} (learned unless maxPerSecond is set); ` +
      `${gate.inFlight} in flight; breaker ${gate.breaker ?? "–"}`,
  ]);
}

// Start

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  useToken($("token").value.trim());
});
$("token-forget").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  $("token").value = "";
  state.token = null;
  signedOut("Token forgotten. Enter it again to continue.");
});
$("break-form").addEventListener("submit", (event) => {
  saveBreak(event).catch((error) => showBreakError("", String(error)));
});
$("break-new").addEventListener("click", () => startEditing(null));
const kept = sessionStorage.getItem(TOKEN_KEY);
if (kept) {
  $("token").value = kept;
  useToken(kept);
}
