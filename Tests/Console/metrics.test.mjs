// The operations console's pure parts, driven directly: the Prometheus text parser and the figures
// summed from it (metrics.mjs), the admin API's errors, the break editor's JSON and the live
// timeline's layout (model.mjs). Run: node --test Tests/Console/
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  adServerRates,
  histogramBuckets,
  histogramQuantile,
  parseMetrics,
  parseSample,
  summarize,
  total,
} from "../../Sources/InterstitialServer/Resources/console/metrics.mjs";

// What GET /metrics answers (swift-prometheus's text format), abridged.
const EXPOSITION = `# HELP hlsi_asset_list_requests_total Asset-list requests answered.
# TYPE hlsi_asset_list_requests_total counter
hlsi_asset_list_requests_total{target="live/demo",source="inventory"} 8
hlsi_asset_list_requests_total{target="vod/demo",source="vast"} 4
# TYPE hlsi_asset_list_filled_total counter
hlsi_asset_list_filled_total{target="live/demo",source="inventory"} 6
hlsi_asset_list_filled_total{target="vod/demo",source="vast"} 3
hlsi_asset_list_ads_total{target="live/demo",source="inventory"} 12
# TYPE hlsi_vast_request_duration_seconds histogram
hlsi_vast_request_duration_seconds_bucket{target="vod/demo",le="0.1"} 2
hlsi_vast_request_duration_seconds_bucket{target="vod/demo",le="0.2"} 3
hlsi_vast_request_duration_seconds_bucket{target="vod/demo",le="+Inf"} 4
hlsi_vast_request_duration_seconds_sum{target="vod/demo"} 1.5
hlsi_vast_request_duration_seconds_count{target="vod/demo"} 4
hlsi_vast_requests_total{target="vod/demo"} 5
hlsi_vast_errors_total{target="vod/demo",code="303"} 1
hlsi_vast_errors_total{target="vod/demo",code="other"} 2
hlsi_vast_timeouts_total{target="vod/demo"} 1
hlsi_ad_decisions_total{target="live/demo",path="prefetch"} 7
hlsi_ad_decisions_total{target="live/demo",path="fallback"} 2
hlsi_ad_decisions_total{target="vod/demo",path="fallback"} 1
hlsi_beacons_seen_total{type="impression"} 9
hlsi_beacons_seen_total{type="complete"} 4
hlsi_beacons_dropped_total{reason="repeated"} 1
hlsi_tracking_requests_total{kind="relayed",result="ok"} 13
hlsi_prefetch_decisions 3
hlsi_prefetch_events_total{result="unused"} 2
hlsi_standing_decisions{target="live/demo"} 120
hlsi_expected_break_seconds{target="live/demo"} 30
hlsi_fast_answers_total 42
`;

test("a sample line: name, labels with escapes, value, an optional timestamp", () => {
  assert.deepEqual(parseSample('a_b{x="1",y="q\\"u\\\\o\\nte"} 2.5 1700000000000'), {
    name: "a_b",
    labels: { x: "1", y: 'q"u\\o\nte' },
    value: 2.5,
  });
  assert.deepEqual(parseSample("up 1"), { name: "up", labels: {}, value: 1 });
  assert.equal(parseSample('x{le="+Inf"} +Inf').value, Infinity);
  assert.ok(Number.isNaN(parseSample("x NaN").value));
  assert.equal(parseSample("x{a=1} 2"), null, "an unquoted label value");
  assert.equal(parseSample('x{a="1} 2'), null, "an unterminated label value");
  assert.equal(parseSample("x two"), null, "not a number");
  assert.equal(parseSample("9x 1"), null, "not a metric name");
});

test("the exposition is read by metric, comments and bad lines skipped", () => {
  const families = parseMetrics(EXPOSITION + "garbage line\n# EOF\n" + "y".repeat(70000) + " 1\n");
  assert.equal(families.get("hlsi_asset_list_requests_total").length, 2);
  assert.equal(families.get("hlsi_fast_answers_total")[0].value, 42);
  assert.equal(families.has("garbage"), false);
  assert.equal(families.has("y".repeat(70000)), false, "an over-long line is skipped");
  assert.equal(total(families, "hlsi_asset_list_requests_total"), 12);
  assert.equal(total(families, "hlsi_asset_list_requests_total", { where: { source: "vast" } }), 4);
  assert.deepEqual(
    [...total(families, "hlsi_ad_decisions_total", { by: "path" })],
    [
      ["prefetch", 7],
      ["fallback", 3],
    ],
  );
  assert.equal(total(families, "missing"), 0);
});

test("histogram quantiles interpolate inside their bucket, as histogram_quantile does", () => {
  const families = parseMetrics(EXPOSITION);
  const bounds = histogramBuckets(families, "hlsi_vast_request_duration_seconds");
  assert.deepEqual(bounds, [
    { le: 0.1, count: 2 },
    { le: 0.2, count: 3 },
    { le: Infinity, count: 4 },
  ]);
  assert.equal(histogramQuantile(bounds, 0.5), 0.1);
  assert.ok(Math.abs(histogramQuantile(bounds, 0.25) - 0.05) < 1e-12);
  assert.ok(Math.abs(histogramQuantile(bounds, 0.625) - 0.15) < 1e-12);
  assert.equal(histogramQuantile(bounds, 0.95), 0.2, "in the +Inf bucket: the highest finite bound");
  assert.equal(histogramQuantile([], 0.5), null);
  assert.equal(histogramQuantile([{ le: Infinity, count: 0 }], 0.5), null);
});

test("the console's figures: fill rate, latency, ad-server answers and errors, beacons, prefetch", () => {
  const figures = summarize(parseMetrics(EXPOSITION));
  assert.equal(figures.fill.requests, 12);
  assert.equal(figures.fill.filled, 9);
  assert.equal(figures.fill.rate, 0.75);
  assert.deepEqual(figures.fill.byTarget, [
    { target: "live/demo", requests: 8, filled: 6, rate: 0.75 },
    { target: "vod/demo", requests: 4, filled: 3, rate: 0.75 },
  ]);
  assert.equal(figures.ads, 12);
  assert.equal(figures.latency.count, 4);
  assert.equal(figures.latency.mean, 0.375);
  assert.equal(figures.latency.p50, 0.1);
  assert.equal(figures.adServer.documents, 5);
  assert.deepEqual(figures.adServer.errors, { 303: 1, other: 2 });
  assert.equal(figures.adServer.timeouts, 1);
  assert.deepEqual(figures.decisions, { fallback: 3, prefetch: 7 });
  assert.deepEqual(figures.beacons.seen, { complete: 4, impression: 9 });
  assert.deepEqual(figures.beacons.dropped, { repeated: 1 });
  assert.deepEqual(figures.tracking, { ok: 13 });
  assert.equal(figures.prefetch.kept, 3);
  assert.deepEqual(figures.prefetch.events, { unused: 2 });
  assert.deepEqual(figures.standing.kept, { "live/demo": 120 });
  assert.deepEqual(figures.standing.expectedBreak, { "live/demo": 30 });
});

test("a server that counted nothing yet: no rate, no latency", () => {
  const figures = summarize(parseMetrics("hlsi_fast_answers_total 0\n"));
  assert.equal(figures.fill.rate, null);
  assert.deepEqual(figures.fill.byTarget, []);
  assert.equal(figures.latency.mean, null);
  assert.equal(figures.latency.p95, null);
  assert.deepEqual(figures.beacons.seen, {});
});

test("each ad server's gate: the rate learned or set, in flight, breaker", () => {
  const families = parseMetrics(`# TYPE hlsi_ad_server_rate_per_second gauge
hlsi_ad_server_rate_per_second{ad_server="http://b.example:80"} 96
hlsi_ad_server_rate_per_second{ad_server="http://a.example:80"} 200
hlsi_ad_server_in_flight{ad_server="http://b.example:80"} 14
hlsi_ad_server_breaker_state{ad_server="http://b.example:80"} 1
hlsi_ad_server_in_flight{ad_server="http://c.example:80"} 0
`);
  assert.deepEqual(adServerRates(families), [
    { adServer: "http://a.example:80", perSecond: 200, inFlight: 0, breaker: null },
    { adServer: "http://b.example:80", perSecond: 96, inFlight: 14, breaker: "half-open" },
    { adServer: "http://c.example:80", perSecond: null, inFlight: 0, breaker: null },
  ]);
  assert.deepEqual(adServerRates(parseMetrics("hlsi_fast_answers_total 0\n")), []);
});
