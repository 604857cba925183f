// End to end: a real x402 buyer pays /v1/uspto/patent through the local facilitator, with PatentsView played by
// a loopback server answering from the recordings; failures, bad input, the free routes and the offline sample.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { FieldDictionaryAnswer } from "../../catalog/field-dictionary.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/local-facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/networks.ts";
import { type LoopbackUpstream, startRecordedUpstream } from "../npm/harness.ts";
import { USPTO_RECORDINGS_DIR, usptoFamily } from "./index.ts";
import { PatentAnswer } from "./patent.ts";
import { UsptoCoverageAnswer, UsptoStatusAnswer } from "./status.ts";

describe("paid /v1/uspto/patent end to end", () => {
  let patentsView: LoopbackUpstream;
  let service: TestService;
  const keys = new Set<string>();
  const buyer = newBuyer();

  before(async () => {
    patentsView = await startRecordedUpstream(USPTO_RECORDINGS_DIR, "patentsview", (_url, request) => {
      keys.add(String(request.headers["x-api-key"]));
      return undefined;
    });
    const env = {
      UPSTREAMS: "live",
      PATENTSVIEW_BASE_URL: patentsView.baseUrl,
      PATENTSVIEW_API_KEY: "test-key-1234",
      PATENTSVIEW_MIN_INTERVAL_MS: "0",
      LOG_LEVEL: "silent",
    };
    service = await startTestService(env, [usptoFamily(loadConfig(env))]);
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  });
  after(async () => {
    await service.stop();
    await patentsView.close();
  });

  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const url = (params: Record<string, string>) =>
    `${service.url}/v1/uspto/patent?${new URLSearchParams(params)}`;

  it("asks for payment first", async () => {
    const response = await fetch(url({ patentNumber: "11896123" }));
    assert.equal(response.status, 402);
    const headerBytes = [...response.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    assert.ok(headerBytes < 12_000, `${headerBytes} bytes of headers`);
    assert.equal(patentsView.requests.length, 0);
  });

  it("a grant by number, asked live with the key in a header; charged 0.01", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url({ patentNumber: "US 11,896,123 B2" }));
    assert.equal(response.status, 200);
    const body = PatentAnswer.parse(await response.json());
    assert.equal(body.patents[0]?.patentNumber, "11896123");
    assert.equal(body.patents[0]?.inventorsCount, 3);
    assert.equal(body.patents[0]?.googlePatentsUrl, "https://patents.google.com/patent/US11896123");
    assert.doesNotMatch(body.sourceUrl, /test-key/);
    assert.match(body.licence.name, /CC BY 4\.0/);
    assert.deepEqual([...keys], ["test-key-1234"]);
    assert.equal(before - (await balance()), 10_000n);
  });

  it("a search: newest grants with every word; its grants are cached by number too", async () => {
    const body = PatentAnswer.parse(await (await payingFetch(buyer)(url({ q: "Lithium  Battery" }))).json());
    assert.equal(body.totalCount, 1234);
    assert.equal(body.count, 2);
    const asked = patentsView.requests.length;
    const byNumber = PatentAnswer.parse(
      await (await payingFetch(buyer)(url({ patentNumber: "12000001" }))).json(),
    );
    assert.equal(byNumber.patents[0]?.claimsCount, 15);
    assert.equal(patentsView.requests.length, asked, "answered from the cache");
  });

  it("no hits is 200 match:false (charged); an unknown number 404 and an upstream error 503 (not charged)", async () => {
    let before = await balance();
    const none = PatentAnswer.parse(
      await (await payingFetch(buyer)(url({ q: "zqxv sample nothing" }))).json(),
    );
    assert.equal(none.match, false);
    assert.match(none.message ?? "", /No US patent grant/);
    assert.equal(before - (await balance()), 10_000n);
    before = await balance();
    const missing = await payingFetch(buyer)(url({ patentNumber: "99999999" }));
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as Record<string, unknown>).charged, false);
    const failing = await payingFetch(buyer)(url({ q: "sample upstream error" }));
    assert.equal(failing.status, 503);
    assert.equal(((await failing.json()) as Record<string, unknown>).error, "upstream_unavailable");
    assert.equal(await balance(), before);
  });

  it("bad input is a 400 naming the parameter, before payment", async () => {
    const cases: Array<[string, string]> = [
      ["", "q"],
      ["q=", "q"],
      ["patentNumber=EP123", "patentNumber"],
      ["q=battery&patentNumber=11896123", "patentNumber"],
      [`q=${"x".repeat(201)}`, "q"],
      ["patentNumber=11896123&limit=5", "limit"],
    ];
    for (const [query, parameter] of cases) {
      const response = await fetch(`${service.url}/v1/uspto/patent?${query}`);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 400, `${query}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, parameter, query);
    }
  });

  it("the warmer caches recent grants; status, coverage and schema are free", async () => {
    const counts = await service.worker.runWarmer("uspto.recent");
    assert.equal(counts.cached, 2);
    const status = UsptoStatusAnswer.parse(await (await fetch(`${service.url}/v1/uspto/status`)).json());
    assert.equal(status.apiKeyConfigured, true);
    assert.match(status.upstreamFetches.lastError ?? "", /HTTP 400: Invalid query parameters/);
    assert.equal(status.warmer.lastOk, true);
    const coverage = UsptoCoverageAnswer.parse(
      await (await fetch(`${service.url}/v1/uspto/coverage`)).json(),
    );
    assert.equal(coverage.grantsCached, 5);
    assert.equal(coverage.searchesCached, 2);
    assert.equal(coverage.recent?.newestGrantDate, "2025-07-15");
    const schema = FieldDictionaryAnswer.parse(await (await fetch(`${service.url}/v1/uspto/schema`)).json());
    assert.ok(schema.products[0]?.fields.some((f) => f.path === "patents[].inventorsCount" && f.nullable));
  });
});

describe("USPTO without a key, and offline", () => {
  it("live without PATENTSVIEW_API_KEY: the paid route is 503 not_configured before payment", async () => {
    const env = { UPSTREAMS: "live", LOG_LEVEL: "silent" };
    const service = await startTestService(env, [usptoFamily(loadConfig(env))]);
    try {
      const response = await fetch(`${service.url}/v1/uspto/patent?patentNumber=11896123`);
      assert.equal(response.status, 503);
      assert.equal(((await response.json()) as Record<string, unknown>).error, "not_configured");
    } finally {
      await service.stop();
    }
  });

  it("UPSTREAMS=replay: the free sample answers from the recordings and says it is a sample", async () => {
    const service = await startTestService({}, [usptoFamily(loadConfig({ UPSTREAMS: "replay" }))]);
    try {
      const response = await fetch(`${service.url}/v1/uspto/patent?patentNumber=11896123&sample=1`);
      assert.equal(response.status, 200);
      const body = PatentAnswer.parse(await response.json());
      assert.match(body.notice, /^RECORDED SAMPLE, NOT LIVE DATA/);
    } finally {
      await service.stop();
    }
  });
});
