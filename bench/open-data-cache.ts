// Benchmark of the open-data search cache: a replayed mix of 1,000 searches with a Zipf distribution (s = 1.07)
// over 2,000 distinct queries, a third of them typed with other case or spacing, against one portal played by
// a loopback CKAN server. Prints the share of answers served from the cache and the server time of a cached
// answer (validation and handler, p50/p99) beside that of a search asked of the portal.
//
//   node_modules/.bin/node bench/open-data-cache.ts   (OPEN_DATA_BENCH_REQUESTS=1000)

import type { AnyProduct } from "../src/catalog/product.ts";
import { govOpenDataFamily } from "../src/products/gov/open-data/index.ts";
import { openFamilyContext, startLoopbackUpstream } from "../test/family-harness.ts";
import { knob, seededRandom } from "./common.ts";

const REQUESTS = knob("OPEN_DATA_BENCH_REQUESTS", 1000, 100, 100_000);
const DISTINCT = 2000;

const { random } = seededRandom(20261125);
// Zipf(1.07) over ranks 1..DISTINCT by inverse transform on the cumulative weights.
const weights = Array.from({ length: DISTINCT }, (_, i) => 1 / (i + 1) ** 1.07);
const total = weights.reduce((a, b) => a + b, 0);
const cumulative: number[] = [];
weights.reduce((sum, w, i) => {
  cumulative[i] = (sum + w) / total;
  return sum + w;
}, 0);
function zipfRank(): number {
  const r = random();
  let lo = 0;
  let hi = DISTINCT - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cumulative[mid] as number) < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
function typed(rank: number): string {
  const base = `air quality ${rank}`;
  const r = random();
  if (r < 1 / 6) return base.toUpperCase();
  if (r < 1 / 3) return `  ${base.replace(/ /g, "   ")} `;
  return base;
}

let portalCalls = 0;
const portal = await startLoopbackUpstream((url) => {
  portalCalls++;
  const q = url.searchParams.get("q") ?? "";
  const results = Array.from({ length: 20 }, (_, i) => ({
    id: `${q.replace(/\W+/g, "-")}-${i}`,
    name: `dataset-${i}`,
    title: `Dataset ${i} for ${q}`,
    metadata_modified: "2025-07-04T09:30:00.123456",
    num_resources: 3,
    license_id: "uk-ogl",
    license_title: "Open Government Licence",
    organization: { name: "org", title: "An Organisation" },
  }));
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ success: true, result: { count: 1234, results } }),
  };
});
const ctx = await openFamilyContext(govOpenDataFamily, {
  UPSTREAMS: "live",
  GOV_GB_OPEN_DATA_BASE_URL: portal.baseUrl,
  CONTACT_EMAIL: "bench@paycall.test",
});
const route = ctx.family.products.find((p) => p.path === "/v1/gov/gb/open-data") as AnyProduct;

const cachedMs: number[] = [];
const liveMs: number[] = [];
for (let i = 0; i < REQUESTS; i++) {
  const before = portalCalls;
  const start = process.hrtime.bigint();
  const query = route.query?.parse({ q: typed(zipfRank() + 1) });
  const outcome = await route.handle({ query, body: undefined }, ctx);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (outcome.status !== 200) throw new Error(`status ${outcome.status}`);
  (portalCalls === before ? cachedMs : liveMs).push(ms);
}
await ctx.close();
await portal.close();

const pct = (list: number[], p: number) =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * p))] ?? Number.NaN;
console.log(
  `open-data search cache: ${REQUESTS} searches, Zipf(1.07) over ${DISTINCT} queries, a third typed differently`,
);
console.log(
  `  served from the cache: ${cachedMs.length} (${((100 * cachedMs.length) / REQUESTS).toFixed(1)} %); portal asked ${portalCalls} times`,
);
console.log(
  `  cached answer, server time: p50 ${pct(cachedMs, 0.5).toFixed(3)} ms, p99 ${pct(cachedMs, 0.99).toFixed(3)} ms`,
);
console.log(
  `  searched live (loopback portal): p50 ${pct(liveMs, 0.5).toFixed(3)} ms, p99 ${pct(liveMs, 0.99).toFixed(3)} ms; ` +
    `ratio live/cached p50 ${(pct(liveMs, 0.5) / pct(cachedMs, 0.5)).toFixed(1)}×`,
);
