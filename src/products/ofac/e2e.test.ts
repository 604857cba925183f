// End to end on loopback: a real x402 buyer pays /v1/ofac/sdn through the local facilitator, with OFAC's
// Sanctions List Service played by a loopback server answering the recorded lists (with ETags).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { OfacSdnAnswer } from "./answer.ts";
import {
  CONSOLIDATED_XML,
  type LoopbackUpstream,
  SDN_XML,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { ofacFamily } from "./index.ts";
import { OfacStatusAnswer } from "./status.ts";

const FILES: Record<string, { body: string; etag: string }> = {
  "/api/PublicationPreview/exports/SDN.XML": { body: SDN_XML, etag: '"sdn-1"' },
  "/api/PublicationPreview/exports/CONSOLIDATED.XML": { body: CONSOLIDATED_XML, etag: '"cons-1"' },
};

describe("paid /v1/ofac/sdn end to end", () => {
  let upstream: LoopbackUpstream;
  let service: TestService;
  const buyer = newBuyer();
  let conditional = 0;

  before(async () => {
    upstream = await startLoopbackUpstream((url, request) => {
      const file = FILES[url.pathname];
      if (!file) return { status: 404, body: "not found" };
      if (request.headers["if-none-match"] === file.etag) {
        conditional++;
        return { status: 304, body: "" };
      }
      return { status: 200, headers: { "content-type": "text/xml", etag: file.etag }, body: file.body };
    });
    const env = {
      UPSTREAMS: "live",
      OFAC_BASE_URL: upstream.baseUrl,
      WORKER_POLL_MS: "100",
      LOG_LEVEL: "silent",
    };
    service = await startTestService(env, [ofacFamily(loadConfig(env))]);
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  });
  after(async () => {
    await service.stop();
    await upstream.close();
  });

  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const url = (params: Record<string, string>) => `${service.url}/v1/ofac/sdn?${new URLSearchParams(params)}`;
  const status = async () =>
    OfacStatusAnswer.parse(await (await fetch(`${service.url}/v1/ofac/status`)).json());

  it("asks for payment first, pointing at the free sample", async () => {
    const response = await fetch(url({ q: "Aero Caribbean" }));
    assert.equal(response.status, 402);
    const body = (await response.json()) as { freeSample?: string };
    assert.match(body.freeSample ?? "", /\/v1\/ofac\/sdn\?q=AEROCARIBBEAN\+AIRLINES&sample=1$/);
  });

  it("before the lists are loaded: 503, nothing charged, and the download is queued", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url({ q: "Aero Caribbean" }));
    assert.equal(response.status, 503);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.error, "list_not_loaded");
    assert.equal(body.charged, false);
    assert.equal(response.headers.get("payment-response"), null);
    assert.equal(await balance(), before);
    for (let i = 0; i < 100 && (await status()).lists.length < 2; i++) await sleep(100);
    const after = await status();
    assert.deepEqual(
      after.lists.map((l) => [l.list, l.publishedOn, l.entries]),
      [
        ["SDN", "2026-07-24", 6],
        ["CONSOLIDATED", "2026-07-21", 2],
      ],
    );
  });

  it("a paid screening hits the entry, says which name matched and how, and is charged 0.01", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url({ q: "Aero Caribbean" }));
    assert.equal(response.status, 200);
    assert.ok(response.headers.get("payment-response"));
    const body = OfacSdnAnswer.parse(await response.json());
    assert.equal(body.match, true);
    assert.equal(body.minScore, 85);
    const hit = body.hits[0];
    assert.equal(hit?.uid, 36);
    assert.equal(hit?.list, "SDN");
    assert.equal(hit?.score, 100);
    assert.equal(hit?.matched.nameType, "aka");
    assert.equal(hit?.matched.name, "AERO-CARIBBEAN");
    assert.equal(hit?.matched.method, "exact");
    assert.deepEqual(hit?.programs, ["CUBA"]);
    assert.equal(hit?.addresses[0]?.city, "Havana");
    assert.equal(hit?.listPublishedOn, "2026-07-24");
    assert.doesNotMatch(body.notice, /RECORDED SAMPLE/);
    assert.equal(before - (await balance()), 10000n);
    const rows = await service.store.ledger.list({ state: "settled" });
    assert.equal(rows.at(-1)?.sku, "ofac.sdn");
    assert.equal(rows.at(-1)?.amount, "10000");
  });

  it("a fuzzy hit on a person carries ids, birth date and the method", async () => {
    const response = await payingFetch(buyer)(url({ q: "Artyom Lifshits", minScore: "80", limit: "5" }));
    const body = OfacSdnAnswer.parse(await response.json());
    const hit = body.hits.find((h) => h.uid === 29702);
    assert.ok(hit, JSON.stringify(body.hits.map((h) => h.uid)));
    assert.equal(hit.type, "individual");
    assert.deepEqual(hit.datesOfBirth, ["26 Dec 1992"]);
    assert.equal(hit.ids[0]?.type, "Passport");
    assert.ok(hit.score >= 80 && hit.score < 100);
    assert.ok(["fullName", "nameParts"].includes(hit.matched.method));
  });

  it("scores are called paycall's own: FAQ 249's higher-of-two is shown beside the capped score", async () => {
    const response = await payingFetch(buyer)(url({ q: "Artyom Lifshits", minScore: "60", limit: "25" }));
    const body = OfacSdnAnswer.parse(await response.json());
    assert.equal(body.scoreOrigin, "paycall");
    assert.match(body.method, /^paycall's own score, modelled on OFAC's Sanctions List Search \(FAQ 249\)/);
    assert.match(body.method, /capped at weakestPartScore/);
    assert.match(body.method, /Soundex codes the first letter/);
    assert.ok(body.hits.length > 0);
    for (const hit of body.hits) {
      const m = hit.matched;
      assert.equal(m.uncappedScore, Math.max(m.fullNameScore, m.namePartsScore));
      assert.equal(m.score, Math.min(m.uncappedScore, m.weakestPartScore));
    }
  });

  it("no hit is a 200 with match:false, a message, and is charged; a weak alias alone is no hit", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url({ q: "LockBitSupp" }));
    assert.equal(response.status, 200);
    const body = OfacSdnAnswer.parse(await response.json());
    assert.equal(body.match, false);
    assert.equal(body.weakAliasOnly, 1);
    assert.match(body.message ?? "", /weak alias only/);
    assert.equal(before - (await balance()), 10000n);
  });

  it("uid screens one entry; a uid not on the lists is a 404 before payment", async () => {
    const one = await payingFetch(buyer)(url({ q: "Dmitry Khoroshev", uid: "48603" }));
    const body = OfacSdnAnswer.parse(await one.json());
    assert.equal(body.uid, 48603);
    assert.deepEqual(
      body.hits.map((h) => h.uid),
      [48603],
    );
    const missing = await fetch(url({ q: "Dmitry Khoroshev", uid: "999999" }));
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("payment-required"), null);
    assert.equal(((await missing.json()) as Record<string, unknown>).charged, false);
  });

  it("bad input is a 400 naming the parameter, before any payment is asked", async () => {
    const cases: Array<[string, string]> = [
      ["q=", "q"],
      ["q=%20%20", "q"],
      ["q=Putin%01", "q"],
      ["q=%2C%2C%2C", "q"],
      [`q=${"x".repeat(201)}`, "q"],
      ["q=Putin&limit=0", "limit"],
      ["q=Putin&limit=101", "limit"],
      ["q=Putin&limit=ten", "limit"],
      ["q=Putin&minScore=49", "minScore"],
      ["q=Putin&minScore=101", "minScore"],
      ["q=Putin&minScore=85.5", "minScore"],
      ["q=Putin&uid=-3", "uid"],
      ["q=Putin&uid=abc", "uid"],
      ["q=Putin&list=sdn", "list"],
    ];
    for (const [query, parameter] of cases) {
      const response = await fetch(`${service.url}/v1/ofac/sdn?${query}`);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 400, `${query.slice(0, 40)}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, parameter, query.slice(0, 40));
      assert.equal(response.headers.get("payment-required"), null);
    }
  });

  it("status is free and reports the lists and this node's index; the warmer asks conditionally", async () => {
    const body = await status();
    assert.equal(body.index.loaded, true);
    assert.equal(body.index.current, true);
    assert.equal(body.index.entries, 8);
    assert.ok(body.index.names > body.index.entries);
    assert.ok(body.index.approximateBytes > 0);
    assert.equal(body.recordedSample, false);
    const counts = await service.worker.runWarmer("ofac.lists");
    assert.deepEqual(counts.changed, []);
    assert.equal(conditional, 2, "both lists answered 304 to If-None-Match");
  });
});

describe("the free sample of /v1/ofac/sdn answers offline (UPSTREAMS=replay)", () => {
  let service: TestService;
  before(async () => {
    const env = { UPSTREAMS: "replay", LOG_LEVEL: "silent" };
    service = await startTestService(env, [ofacFamily(loadConfig(env))]);
  });
  after(() => service.stop());

  it("screens the sample name against the recorded lists and says it is a recorded sample", async () => {
    const response = await fetch(`${service.url}/v1/ofac/sdn?q=AEROCARIBBEAN+AIRLINES&sample=1`);
    assert.equal(response.status, 200);
    const body = OfacSdnAnswer.parse(await response.json());
    assert.equal(body.hits[0]?.uid, 36);
    assert.equal(body.hits[0]?.matched.nameType, "primary");
    assert.match(body.notice, /^RECORDED SAMPLE, NOT LIVE DATA/);
  });
});
