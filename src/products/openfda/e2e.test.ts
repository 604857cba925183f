// End to end on loopback: a real x402 buyer pays /v1/openfda/drug/label through the local facilitator, with
// openFDA played by a loopback server answering from the recordings.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import {
  IBUPROFEN_PAGE,
  type LoopbackUpstream,
  NOT_FOUND_BODY,
  recordedBody,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { openFdaFamily } from "./index.ts";
import { OpenFdaLabelAnswer } from "./label.ts";
import { OpenFdaStatusAnswer } from "./status.ts";

const KEY = "SampleKey0123456789abcdef";

describe("paid /v1/openfda/drug/label end to end", () => {
  let upstream: LoopbackUpstream;
  let service: TestService;
  const buyer = newBuyer();

  before(async () => {
    upstream = await startLoopbackUpstream((url) => {
      const search = url.searchParams.get("search") ?? "";
      if (search.includes('"ibuprofen"') && search.startsWith("openfda.brand_name")) {
        return { status: 200, body: IBUPROFEN_PAGE };
      }
      // A label openFDA did not harmonise: found only by its product data elements.
      if (search === 'spl_product_data_elements:"ibuprofen lysine"')
        return { status: 200, body: IBUPROFEN_PAGE };
      // What openFDA's server answers a search it will not run (recorded from its source).
      if (search.includes('"refused-by-openfda"'))
        return { status: 400, body: recordedBody("search-not-supported") };
      if (search.includes('"unreachable"'))
        return { status: 500, headers: { "retry-after": "0" }, body: "oops" };
      return { status: 404, body: NOT_FOUND_BODY };
    });
    const env = {
      UPSTREAMS: "live",
      OPENFDA_BASE_URL: upstream.baseUrl,
      OPENFDA_API_KEY: KEY,
      OPENFDA_WARM_QUERIES: "ibuprofen,zyxofen",
      LOG_LEVEL: "silent",
    };
    service = await startTestService(env, [openFdaFamily(loadConfig(env))]);
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  });
  after(async () => {
    await service.stop();
    await upstream.close();
  });

  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const url = (q: string) => `${service.url}/v1/openfda/drug/label?${new URLSearchParams({ q })}`;

  it("asks for payment first, pointing at the free sample; nothing is searched before payment", async () => {
    const response = await fetch(url("Ibuprofen"));
    assert.equal(response.status, 402);
    const body = (await response.json()) as { freeSample?: string };
    assert.match(body.freeSample ?? "", /\/v1\/openfda\/drug\/label\?q=ibuprofen&sample=1$/);
    assert.equal(upstream.requests.length, 0);
  });

  it("a paid name not cached is searched live, answered with the label and charged 0.01", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url("Ibuprofen"));
    assert.equal(response.status, 200);
    assert.ok(response.headers.get("payment-response"));
    const body = OpenFdaLabelAnswer.parse(await response.json());
    assert.equal(body.match, true);
    assert.equal(body.matchedBy, "brand_name");
    assert.equal(body.exactName, true);
    assert.equal(body.label?.setId, "7c1e9f2a-3b4d-4c5e-8f6a-9b0c1d2e3f4a");
    assert.match(body.label?.boxedWarning ?? "", /CARDIOVASCULAR/);
    assert.equal(body.label?.effectiveDate, "2026-03-02");
    assert.deepEqual(
      body.otherLabels.map((l) => l.brandNames[0]),
      ["Advil", "Ibuprofen"],
    );
    assert.equal(body.totalMatches, 3);
    assert.match(body.disclaimer, /^Do not rely on openFDA/);
    assert.equal(body.auth, "key");
    assert.doesNotMatch(body.source, /api_key/, "the key never appears in answers");
    assert.equal(upstream.requests[0]?.searchParams.get("api_key"), KEY, "the key is sent to openFDA");
    assert.equal(upstream.requests.length, 1);
    assert.equal(before - (await balance()), 10000n);
    const rows = await service.store.ledger.list({ state: "settled" });
    assert.equal(rows.at(-1)?.sku, "openfda.drug.label");
  });

  it("the same name again, in other case and spacing, is served from the cache", async () => {
    const response = await payingFetch(buyer)(url("  IBUPROFEN "));
    assert.equal(OpenFdaLabelAnswer.parse(await response.json()).label?.brandNames[0], "Ibuprofen");
    assert.equal(upstream.requests.length, 1);
  });

  it("a name only in unharmonised product data is found by the second search", async () => {
    const response = await payingFetch(buyer)(url("ibuprofen lysine"));
    const body = OpenFdaLabelAnswer.parse(await response.json());
    assert.equal(body.match, true);
    assert.equal(body.matchedBy, "product_elements");
    assert.equal(body.exactName, false);
  });

  it("no label is a 200 with match:false and a message, charged (openFDA's 404 NOT_FOUND is no match)", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url("zyxofen"));
    assert.equal(response.status, 200);
    const body = OpenFdaLabelAnswer.parse(await response.json());
    assert.equal(body.match, false);
    assert.equal(body.label, null);
    assert.equal(body.matchedBy, null);
    assert.match(body.message ?? "", /No FDA drug label/);
    assert.equal(before - (await balance()), 10000n);
  });

  it("openFDA failing on a name not cached: 503, nothing charged", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url("unreachable"));
    assert.equal(response.status, 503);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.charged, false);
    assert.equal(body.error, "upstream_unavailable");
    assert.doesNotMatch(String(body.message), new RegExp(KEY));
    assert.equal(response.headers.get("payment-response"), null);
    assert.equal(await balance(), before);
  });

  it("accents are folded to ASCII, as openFDA searches nothing else: IBUPROFÈN finds ibuprofen", async () => {
    const asked = upstream.requests.length;
    const response = await payingFetch(buyer)(url("IBUPROFÈN"));
    assert.equal(response.status, 200);
    const body = OpenFdaLabelAnswer.parse(await response.json());
    assert.equal(body.query, "IBUPROFÈN");
    assert.equal(body.searchedAs, "ibuprofen");
    assert.equal(body.match, true);
    assert.equal(upstream.requests.length, asked, "the same name as ibuprofen: served from its cache");
    const accented = await payingFetch(buyer)(url("Zyxofène"));
    assert.equal(OpenFdaLabelAnswer.parse(await accented.json()).searchedAs, "zyxofene");
    const sent = upstream.requests.at(-1)?.searchParams.get("search") ?? "";
    assert.match(sent, /"zyxofene"/);
    assert.match(sent, /^[\x20-\x7e]+$/, "only ASCII reaches openFDA");
  });

  it("a letter with no ASCII form is a 400 naming q before payment; openFDA is not asked", async () => {
    const asked = upstream.requests.length;
    for (const q of ["straße", "Æther", "аспирин"]) {
      const response = await fetch(url(q));
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 400, q);
      assert.equal(body.parameter, "q");
      assert.match(String(body.message), /openFDA cannot search/);
      assert.equal(response.headers.get("payment-required"), null);
    }
    assert.equal(upstream.requests.length, asked);
  });

  it("a search openFDA refuses (its 400) is a 400 naming q, not charged, not an upstream failure", async () => {
    const statusOf = async () =>
      OpenFdaStatusAnswer.parse(await (await fetch(`${service.url}/v1/openfda/status`)).json());
    const healthBefore = (await statusOf()).upstreamFetches;
    const before = await balance();
    const response = await payingFetch(buyer)(url("refused-by-openfda"));
    assert.equal(response.status, 400);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.parameter, "q");
    assert.equal(body.charged, false);
    assert.notEqual(body.error, "upstream_unavailable");
    assert.match(String(body.message), /Search not supported/);
    assert.equal(response.headers.get("payment-response"), null);
    assert.equal(await balance(), before);
    const health = (await statusOf()).upstreamFetches;
    assert.equal(health.lastErrorAt, healthBefore.lastErrorAt, "not counted as openFDA failing");
    assert.ok(health.lastOkAt && health.lastOkAt >= (healthBefore.lastOkAt ?? ""));
  });

  it("bad input is a 400 naming the parameter, before any payment is asked", async () => {
    const cases: Array<[string, string]> = [
      ["q=", "q"],
      ["q=%20%20", "q"],
      ["q=advil%0A", "q"],
      [`q=${"a".repeat(101)}`, "q"],
      ["q=advil%22+OR+x", "q"],
      ["q=advil*", "q"],
      ["q=---", "q"],
      ["q=advil&limit=5", "limit"],
    ];
    for (const [query, parameter] of cases) {
      const response = await fetch(`${service.url}/v1/openfda/drug/label?${query}`);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 400, `${query}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, parameter, query);
      assert.equal(response.headers.get("payment-required"), null);
    }
  });

  it("the warmer refreshes the popular names; status is free and reports them", async () => {
    const counts = await service.worker.runWarmer("openfda.labels");
    assert.equal(counts.refreshed, 2);
    assert.equal(counts.matched, 1);
    const response = await fetch(`${service.url}/v1/openfda/status`);
    assert.equal(response.status, 200);
    const body = OpenFdaStatusAnswer.parse(await response.json());
    assert.equal(body.auth, "key");
    assert.equal(body.dailyLimit, 120_000);
    assert.equal(body.warmer.lastOk, true);
    assert.deepEqual(
      body.warmQueries.map((w) => [w.query, w.cached, w.match]),
      [
        ["ibuprofen", true, true],
        ["zyxofen", true, false],
      ],
    );
    assert.equal(body.cache.queries, 5);
  });
});

describe("the free sample of /v1/openfda/drug/label answers offline (UPSTREAMS=replay)", () => {
  let service: TestService;
  before(async () => {
    const env = { UPSTREAMS: "replay", LOG_LEVEL: "silent" };
    service = await startTestService(env, [openFdaFamily(loadConfig(env))]);
  });
  after(() => service.stop());

  it("answers the sample from the recordings and says it is a recorded sample", async () => {
    const response = await fetch(`${service.url}/v1/openfda/drug/label?q=ibuprofen&sample=1`);
    assert.equal(response.status, 200);
    const body = OpenFdaLabelAnswer.parse(await response.json());
    assert.equal(body.label?.setId, "7c1e9f2a-3b4d-4c5e-8f6a-9b0c1d2e3f4a");
    assert.equal(body.auth, "anonymous");
    assert.match(body.notice, /^RECORDED SAMPLE, NOT LIVE DATA/);
  });

  it("the recorded 404 NOT_FOUND answers are a paid match:false", async () => {
    const buyer = newBuyer();
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
    const response = await payingFetch(buyer)(`${service.url}/v1/openfda/drug/label?q=zyxofen`);
    assert.equal(response.status, 200);
    assert.equal(OpenFdaLabelAnswer.parse(await response.json()).match, false);
  });
});
