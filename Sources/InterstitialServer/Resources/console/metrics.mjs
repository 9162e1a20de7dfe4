// The server's metrics for the operations console: the Prometheus text exposition format 0.0.4
// (what GET /metrics answers) parsed into series, and the figures an operator watches summed from
// them. Pure: no DOM, no network (tested by Tests/Console/metrics.test.mjs under node --test).

/** The longest line read; a longer one is skipped (the server writes none near it). */
const LONGEST_LINE = 64 * 1024;

/**
 * Parses the text format: `name{label="value",...} value [timestamp]` lines; `#` lines (HELP,
 * TYPE, comments) and lines that are not a sample are skipped.
 * @param {string} text
 * @returns {Map<string, {labels: Record<string, string>, value: number}[]>} series by metric name
 */
export function parseMetrics(text) {
  const families = new Map();
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.length > LONGEST_LINE) continue;
    const sample = parseSample(line);
    if (!sample) continue;
    let list = families.get(sample.name);
    if (!list) families.set(sample.name, (list = []));
    list.push({ labels: sample.labels, value: sample.value });
  }
  return families;
}

/** One sample line, or null when it is not one. */
export function parseSample(line) {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!name) return null;
  let at = name[0].length;
  const labels = {};
  if (line[at] === "{") {
    at += 1;
    for (;;) {
      while (line[at] === " " || line[at] === ",") at += 1;
      if (line[at] === "}") {
        at += 1;
        break;
      }
      const key = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(at));
      if (!key) return null;
      at += key[0].length;
      if (line[at] !== "=" || line[at + 1] !== '"') return null;
      at += 2;
      let value = "";
      for (;;) {
        const char = line[at];
        if (char === undefined) return null;
        at += 1;
        if (char === '"') break;
        if (char === "\\") {
          const next = line[at];
          at += 1;
          value += next === "n" ? "\n" : next === undefined ? "" : next;
        } else {
          value += char;
        }
      }
      labels[key[0]] = value;
    }
  }
  const rest = line.slice(at).trim().split(/\s+/);
  const value = parseValue(rest[0]);
  if (value === null) return null;
  return { name: name[0], labels, value };
}

/** A sample's value: a float, `+Inf`, `-Inf` or `NaN`; null otherwise. */
export function parseValue(text) {
  if (text === undefined || text === "") return null;
  if (text === "+Inf" || text === "Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  const value = Number(text);
  return Number.isNaN(value) ? null : value;
}

/**
 * The sum of a metric's series, optionally only those whose labels match `where`, grouped by the
 * label `by` (a Map label value → sum) or in all (a number).
 */
export function total(families, name, { where = {}, by } = {}) {
  const series = (families.get(name) || []).filter((item) =>
    Object.entries(where).every(([key, value]) => item.labels[key] === value),
  );
  if (by === undefined) return series.reduce((sum, item) => sum + item.value, 0);
  const grouped = new Map();
  for (const item of series) {
    const key = item.labels[by] ?? "";
    grouped.set(key, (grouped.get(key) || 0) + item.value);
  }
  return grouped;
}

/**
 * The `q` quantile (0..1) of a histogram from its cumulative buckets (`le` → count), interpolated
 * linearly inside the bucket it falls in, as Prometheus's histogram_quantile does; null without
 * observations. A quantile in the +Inf bucket is the highest finite bound.
 * @param {{le: number, count: number}[]} bounds
 */
export function histogramQuantile(bounds, q) {
  const sorted = bounds.toSorted((a, b) => a.le - b.le);
  if (sorted.length === 0) return null;
  const count = sorted[sorted.length - 1].count;
  if (!(count > 0)) return null;
  const rank = q * count;
  let lower = 0;
  let below = 0;
  for (const bucket of sorted) {
    if (bucket.count >= rank) {
      if (bucket.le === Infinity) return lower;
      const inside = bucket.count - below;
      return inside > 0 ? lower + ((bucket.le - lower) * (rank - below)) / inside : bucket.le;
    }
    lower = bucket.le;
    below = bucket.count;
  }
  return lower;
}

/** A histogram's buckets summed over its series (the labels other than `le` dropped). */
export function histogramBuckets(families, name) {
  const byBound = new Map();
  for (const item of families.get(name + "_bucket") || []) {
    const le = parseValue(item.labels.le);
    if (le === null) continue;
    byBound.set(le, (byBound.get(le) || 0) + item.value);
  }
  return [...byBound].map(([le, count]) => ({ le, count }));
}

/** A Map as a plain object sorted by key, for display. */
const sortedObject = (map) => Object.fromEntries([...map].toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * What the console shows: fill rate (overall and by target), the asset-list decision latency
 * through VAST (mean, median, 95th percentile), ad-server answers and errors, beacons seen and
 * dropped, decisions by path (prefetch, fallback, ...), what was decided ahead.
 */
export function summarize(families) {
  const requests = total(families, "hlsi_asset_list_requests_total", { by: "target" });
  const filled = total(families, "hlsi_asset_list_filled_total", { by: "target" });
  const byTarget = [...requests.keys()].toSorted().map((target) => {
    const asked = requests.get(target) || 0;
    const got = filled.get(target) || 0;
    return { target, requests: asked, filled: got, rate: asked > 0 ? got / asked : null };
  });
  const allRequests = byTarget.reduce((sum, item) => sum + item.requests, 0);
  const allFilled = byTarget.reduce((sum, item) => sum + item.filled, 0);
  const latencyName = "hlsi_vast_request_duration_seconds";
  const latencyBuckets = histogramBuckets(families, latencyName);
  const count = total(families, latencyName + "_count");
  const sum = total(families, latencyName + "_sum");
  return {
    fill: {
      requests: allRequests,
      filled: allFilled,
      rate: allRequests > 0 ? allFilled / allRequests : null,
      byTarget,
    },
    ads: total(families, "hlsi_asset_list_ads_total"),
    latency: {
      count,
      mean: count > 0 ? sum / count : null,
      p50: histogramQuantile(latencyBuckets, 0.5),
      p95: histogramQuantile(latencyBuckets, 0.95),
    },
    adServer: {
      documents: total(families, "hlsi_vast_requests_total"),
      errors: sortedObject(total(families, "hlsi_vast_errors_total", { by: "code" })),
      timeouts: total(families, "hlsi_vast_timeouts_total"),
      shed: sortedObject(total(families, "hlsi_ad_server_shed_total", { by: "reason" })),
    },
    decisions: sortedObject(total(families, "hlsi_ad_decisions_total", { by: "path" })),
    beacons: {
      seen: sortedObject(total(families, "hlsi_beacons_seen_total", { by: "type" })),
      dropped: sortedObject(total(families, "hlsi_beacons_dropped_total", { by: "reason" })),
    },
    tracking: sortedObject(total(families, "hlsi_tracking_requests_total", { by: "result" })),
    prefetch: {
      kept: total(families, "hlsi_prefetch_decisions"),
      events: sortedObject(total(families, "hlsi_prefetch_events_total", { by: "result" })),
    },
    // Standing decisions (a decision per viewer for each channel's next break, before any cue):
    // how many each channel keeps, and the break length they are asked for (seconds).
    standing: {
      kept: sortedObject(total(families, "hlsi_standing_decisions", { by: "target" })),
      expectedBreak: sortedObject(total(families, "hlsi_expected_break_seconds", { by: "target" })),
    },
  };
}

// Ad servers' gates: the rate each lets through (learned when maxPerSecond is not set), beside
// its requests in flight and its breaker.

/** The breaker gauge's states (hlsi_ad_server_breaker_state). */
const BREAKER_STATES = ["closed", "half-open", "open"];

/**
 * Each ad server's gate, sorted by ad server: `perSecond` (hlsi_ad_server_rate_per_second, the
 * rate learned or set; null when not exported), `inFlight`, `breaker` ("closed", "half-open",
 * "open"; null when unknown).
 * @returns {{adServer: string, perSecond: number|null, inFlight: number, breaker: string|null}[]}
 */
export function adServerRates(families) {
  const rates = total(families, "hlsi_ad_server_rate_per_second", { by: "ad_server" });
  const inFlight = total(families, "hlsi_ad_server_in_flight", { by: "ad_server" });
  const breakers = total(families, "hlsi_ad_server_breaker_state", { by: "ad_server" });
  const servers = new Set([...rates.keys(), ...inFlight.keys(), ...breakers.keys()]);
  return [...servers].toSorted().map((adServer) => ({
    adServer,
    perSecond: rates.has(adServer) ? rates.get(adServer) : null,
    inFlight: inFlight.get(adServer) || 0,
    breaker: breakers.has(adServer) ? (BREAKER_STATES[breakers.get(adServer)] ?? null) : null,
  }));
}
