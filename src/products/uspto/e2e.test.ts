// End to end: a real x402 buyer pays /v1/uspto/patent through the local facilitator, with the USPTO Open Data
// Portal played by a loopback server answering POST searches from the recordings (real captured answers);
// refusals, throttling, bad input, the free routes, a missing key and the offline sample.
import assert from "node:assert/strict";
import type http from "node:http";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { FieldDictionaryAnswer } from "../../catalog/field-dictionary.ts";
import { loadConfig } from "../../config.ts";
import { bodyFields } from "../../upstream/client.ts";
import { loadRecordings, RecordingIndex } from "../../upstream/recordings.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { type LoopbackUpstream, startLoopbackUpstream } from "../npm/harness.test-helper.ts";
import { USPTO_RECORDINGS_DIR, usptoFamily } from "./index.ts";
import { PatentAnswer } from "./patent.ts";
import { UsptoCoverageAnswer, UsptoStatusAnswer } from "./status.ts";

interface Seen {
  method: string;
  path: string;
  key: string | undefined;
  body: Record<string, unknown> | undefined;
  at: number;
}

type Answer = { status: number; headers?: Record<string, string>; body: string };

/** The portal's stand-in: each request answered by the recording of its method, path and body fields. */
async function startPortal(override?: (seen: Seen) => Answer | undefined) {
  const index = new RecordingIndex(loadRecordings(USPTO_RECORDINGS_DIR));
  const seen: Seen[] = [];
  const server: LoopbackUpstream = await startLoopbackUpstream((url, request: http.IncomingMessage, raw) => {
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    const hit: Seen = {
      method: request.method ?? "",
      path: url.pathname,
      key: request.headers["x-api-key"] as string | undefined,
      body,
      at: performance.now(),
    };
    seen.push(hit);
    const special = override?.(hit);
    if (special) return special;
    const query = { ...Object.fromEntries(url.searchParams), ...bodyFields(body) };
    const recording = index.find("uspto", hit.method, { path: url.pathname, query });
    if (!recording) return { status: 500, body: `no recording for ${hit.method} ${url.pathname}` };
    return {
      status: recording.response.status,
      headers: recording.response.headers ?? {},
      body: recording.body,
    };
  });
  return { server, seen };
}

const liveEnv = (baseUrl: string) => ({
  UPSTREAMS: "live",
  USPTO_BASE_URL: baseUrl,
  USPTO_API_KEY: "test-key-1234",
  USPTO_MIN_INTERVAL_MS: "0",
  LOG_LEVEL: "silent",
});

describe("paid /v1/uspto/patent end to end", () => {
  let portal: Awaited<ReturnType<typeof startPortal>>;
  let service: TestService;
  const buyer = newBuyer();

  before(async () => {
    portal = await startPortal();
    const env = liveEnv(portal.server.baseUrl);
    service = await startTestService(env, [usptoFamily(loadConfig(env))]);
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  });
  after(async () => {
    await service.stop();
    await portal.server.close();
  });

  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const url = (params: Record<string, string>) =>
    `${service.url}/v1/uspto/patent?${new URLSearchParams(params)}`;
  const status = async () =>
    UsptoStatusAnswer.parse(await (await fetch(`${service.url}/v1/uspto/status`)).json());

  it("asks for payment first", async () => {
    const response = await fetch(url({ patentNumber: "11646472" }));
    assert.equal(response.status, 402);
    assert.equal(portal.seen.length, 0);
  });

  it("a grant by number: one POST search with the key in a header; mapped fields, notes for nulls; charged 0.01", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url({ patentNumber: "US 11,646,472 B2" }));
    assert.equal(response.status, 200);
    const body = PatentAnswer.parse(await response.json());
    const patent = body.patents[0];
    assert.equal(patent?.patentNumber, "11646472");
    assert.equal(patent?.applicationNumber, "17248024");
    assert.equal(patent?.grantDate, "2023-05-09");
    assert.deepEqual(patent?.assignees, ["PolyPlus Battery Company"]);
    assert.equal(patent?.inventorsCount, 4);
    assert.equal(patent?.abstract, null);
    assert.equal(patent?.claimsCount, null);
    assert.match(body.fieldNotes.abstract ?? "", /no abstracts/);
    assert.match(body.fieldNotes.claimsCount ?? "", /no number of claims/);
    assert.equal(patent?.googlePatentsUrl, "https://patents.google.com/patent/US11646472");
    assert.match(body.sourceUrl, /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/patent\/applications\/search\?q=/);
    assert.doesNotMatch(body.sourceUrl, /test-key/);
    assert.match(body.licence.name, /US government/);
    const asked = portal.seen.at(-1);
    assert.equal(asked?.method, "POST");
    assert.equal(asked?.key, "test-key-1234");
    assert.equal(asked?.body?.q, "applicationMetaData.patentNumber:11646472");
    assert.ok(Array.isArray(asked?.body?.fields));
    assert.equal(asked?.body?.rangeFilters, undefined, "a number is looked up among every record");
    assert.equal(before - (await balance()), 10_000n);
  });

  it("a title search: grants only, newest first; charged", async () => {
    const before = await balance();
    const body = PatentAnswer.parse(await (await payingFetch(buyer)(url({ q: "Lithium  Battery" }))).json());
    assert.equal(body.match, true);
    assert.equal(body.totalCount, 1);
    assert.equal(body.patents[0]?.title?.includes("LITHIUM"), true);
    const asked = portal.seen.at(-1);
    assert.deepEqual(
      ((asked?.body?.rangeFilters ?? []) as Array<{ field: string }>).map((r) => r.field),
      ["applicationMetaData.grantDate"],
    );
    assert.deepEqual(asked?.body?.sort, [{ field: "applicationMetaData.grantDate", order: "desc" }]);
    assert.equal(before - (await balance()), 10_000n);
  });

  it("no hits (the portal's 404) is 200 match:false, charged; an unknown number is 404, not charged", async () => {
    let before = await balance();
    const none = PatentAnswer.parse(
      await (await payingFetch(buyer)(url({ q: "zzzznonexistentqueryterm12345" }))).json(),
    );
    assert.equal(none.match, false);
    assert.equal(none.totalCount, 0);
    assert.match(none.message ?? "", /No US patent grant/);
    assert.equal(before - (await balance()), 10_000n);
    before = await balance();
    const missing = await payingFetch(buyer)(url({ patentNumber: "99999999" }));
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as Record<string, unknown>).charged, false);
    assert.equal(await balance(), before);
    assert.equal((await status()).upstreamFetches.lastError, null, "no-match answers are not failures");
  });

  it("a query the portal refuses (400) is a 400 naming q, not charged, not counted as an outage", async () => {
    const before = await balance();
    const refused = await payingFetch(buyer)(url({ q: "sample refused query" }));
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as Record<string, unknown>;
    assert.equal(body.parameter, "q");
    assert.equal(body.charged, false);
    assert.match(String(body.message), /review patent data request filter section/);
    assert.equal(await balance(), before);
    assert.equal((await status()).upstreamFetches.lastError, null);
  });

  it("a refused key (403) is 503 upstream_unavailable, not charged, and the status says what to check", async () => {
    const before = await balance();
    const failing = await payingFetch(buyer)(url({ q: "sample refused key" }));
    assert.equal(failing.status, 503);
    assert.equal(((await failing.json()) as Record<string, unknown>).error, "upstream_unavailable");
    assert.equal(await balance(), before);
    assert.match(
      (await status()).upstreamFetches.lastError ?? "",
      /HTTP 403 \(API key refused.*USPTO_API_KEY/,
    );
  });

  it("bad input is a 400 naming the parameter, before payment", async () => {
    const cases: Array<[string, string]> = [
      ["q=", "q"],
      ["patentNumber=EP123", "patentNumber"],
      ["q=battery&patentNumber=11646472", "patentNumber"],
      [`q=${"x".repeat(201)}`, "q"],
      ["patentNumber=11646472&limit=5", "limit"],
    ];
    for (const [query, parameter] of cases) {
      const response = await fetch(`${service.url}/v1/uspto/patent?${query}`);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 400, `${query}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, parameter, query);
    }
  });

  it("the warmer caches recent grants, answered later without the portal; status, coverage, schema are free", async () => {
    const counts = await service.worker.runWarmer("uspto.recent");
    assert.equal(counts.cached, 1);
    const asked = portal.seen.length;
    const recent = PatentAnswer.parse(
      await (await payingFetch(buyer)(url({ patentNumber: "12735810" }))).json(),
    );
    assert.equal(recent.patents[0]?.grantDate, "2026-09-15");
    assert.equal(portal.seen.length, asked, "answered from the cache");
    const state = await status();
    assert.equal(state.apiKeyConfigured, true);
    assert.equal(state.warmer.lastOk, true);
    assert.equal(state.pausedUntil, null);
    const coverage = UsptoCoverageAnswer.parse(
      await (await fetch(`${service.url}/v1/uspto/coverage`)).json(),
    );
    assert.equal(coverage.grantsCached, 2);
    assert.equal(coverage.searchesCached, 2, "a refused query is not counted");
    assert.equal(coverage.recent?.newestGrantDate, "2026-09-15");
    const schema = FieldDictionaryAnswer.parse(await (await fetch(`${service.url}/v1/uspto/schema`)).json());
    assert.ok(schema.products[0]?.fields.some((f) => f.path === "patents[].applicationNumber" && f.nullable));
  });

  it("a 429 backs off at least 5 s, then one retry; still refused: 503 not charged, the pause shown", async () => {
    const before = await balance();
    const from = portal.seen.length;
    const response = await payingFetch(buyer)(url({ q: "sample throttled" }));
    assert.equal(response.status, 503);
    const body = (await response.json()) as Record<string, unknown>;
    assert.match(String(body.message), /slow down/);
    assert.ok(Number(body.retryAfterSec) >= 1);
    const tries = portal.seen.slice(from);
    assert.equal(tries.length, 2);
    const gap = tries[1]!.at - tries[0]!.at;
    assert.ok(gap >= 4900, `retried after ${gap.toFixed(0)} ms`);
    assert.equal(await balance(), before);
    assert.notEqual((await status()).pausedUntil, null);
  });
});

describe("USPTO throttling: a longer Retry-After holds every request", () => {
  it("Retry-After 30: the call fails at once with that wait, and the next one does not reach the portal", async () => {
    const portal = await startPortal((seen) =>
      seen.method === "POST" ? { status: 429, headers: { "retry-after": "30" }, body: "" } : undefined,
    );
    const env = liveEnv(portal.server.baseUrl);
    const service = await startTestService(env, [usptoFamily(loadConfig(env))]);
    const buyer = newBuyer();
    try {
      await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
      const started = performance.now();
      const first = await payingFetch(buyer)(`${service.url}/v1/uspto/patent?patentNumber=11646472`);
      assert.equal(first.status, 503);
      const body = (await first.json()) as Record<string, unknown>;
      assert.ok(Number(body.retryAfterSec) >= 25, JSON.stringify(body));
      assert.ok(performance.now() - started < 4000);
      assert.equal(portal.seen.length, 1);
      const second = await payingFetch(buyer)(`${service.url}/v1/uspto/patent?q=battery`);
      assert.equal(second.status, 503);
      assert.equal(portal.seen.length, 1, "paused: nothing sent");
    } finally {
      await service.stop();
      await portal.server.close();
    }
  });
});

describe("USPTO without a key, and offline", () => {
  it("live without USPTO_API_KEY: disabled, the paid route is 503 not_configured before payment", async () => {
    const env = { UPSTREAMS: "live", LOG_LEVEL: "silent", PATENTSVIEW_API_KEY: "old-patentsearch-key" };
    const service = await startTestService(env, [usptoFamily(loadConfig(env))]);
    try {
      const response = await fetch(`${service.url}/v1/uspto/patent?patentNumber=11646472`);
      assert.equal(response.status, 503);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body.error, "not_configured");
      assert.match(String(body.reason), /USPTO_API_KEY is not set/);
      assert.match(String(body.reason), /does not accept PatentSearch keys/);
      assert.match(String(body.fix), /USPTO_API_KEY/);
    } finally {
      await service.stop();
    }
  });

  it("UPSTREAMS=replay: the free sample answers from the recordings and says it is a sample", async () => {
    const service = await startTestService({}, [usptoFamily(loadConfig({ UPSTREAMS: "replay" }))]);
    try {
      const response = await fetch(`${service.url}/v1/uspto/patent?patentNumber=11646472&sample=1`);
      assert.equal(response.status, 200);
      const body = PatentAnswer.parse(await response.json());
      assert.equal(body.patents[0]?.applicationNumber, "17248024");
      assert.match(body.notice, /^RECORDED SAMPLE, NOT LIVE DATA/);
    } finally {
      await service.stop();
    }
  });
});
