// End to end on loopback: a real x402 buyer pays /v1/courts/search through the local facilitator, with
// CourtListener played by a loopback server answering from the recordings.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import {
  EMPTY_PAGE,
  type LoopbackUpstream,
  RECORDED_PAGE,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { courtsFamily } from "./index.ts";
import { CourtsSearchAnswer } from "./search.ts";
import { CourtsStatusAnswer } from "./status.ts";

describe("paid /v1/courts/search end to end", () => {
  let upstream: LoopbackUpstream;
  let service: TestService;
  const buyer = newBuyer();

  before(async () => {
    upstream = await startLoopbackUpstream((url) => {
      const q = url.searchParams.get("q");
      if (q === '"fourth amendment"') return { status: 200, body: RECORDED_PAGE };
      if (q === '"purple elephant statute"') return { status: 200, body: EMPTY_PAGE };
      return { status: 500, headers: { "retry-after": "0" }, body: "Internal Server Error" };
    });
    const env = {
      UPSTREAMS: "live",
      COURTLISTENER_BASE_URL: upstream.baseUrl,
      COURTLISTENER_MIN_INTERVAL_MS: "0",
      LOG_LEVEL: "silent",
    };
    service = await startTestService(env, [courtsFamily(loadConfig(env))]);
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  });
  after(async () => {
    await service.stop();
    await upstream.close();
  });

  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const url = (q: string) => `${service.url}/v1/courts/search?${new URLSearchParams({ q })}`;

  it("asks for payment first, pointing at the free sample", async () => {
    const response = await fetch(url("fourth amendment"));
    assert.equal(response.status, 402);
    assert.ok(response.headers.get("payment-required"));
    const body = (await response.json()) as { freeSample?: string };
    assert.match(body.freeSample ?? "", /\/v1\/courts\/search\?q=fourth\+amendment&sample=1$/);
    assert.equal(upstream.requests.length, 0, "nothing is searched before payment");
  });

  it("a paid query not yet cached is searched live, answered and charged 5000", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url("Fourth Amendment"));
    assert.equal(response.status, 200);
    assert.ok(response.headers.get("payment-response"));
    const body = CourtsSearchAnswer.parse(await response.json());
    assert.equal(body.query, "Fourth Amendment");
    assert.equal(body.count, 20);
    assert.equal(body.totalCount, 48213);
    assert.equal(body.match, true);
    assert.equal(body.auth, "anonymous");
    assert.equal(upstream.requests.length, 1);
    assert.equal(before - (await balance()), 5000n);
    const rows = await service.store.ledger.list();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.sku, "courts.search");
    assert.equal(rows[0]?.state, "settled");
    assert.equal(rows[0]?.amount, "5000");
  });

  it("the same query again is served from the cache", async () => {
    const response = await payingFetch(buyer)(url("fourth   amendment"));
    assert.equal(response.status, 200);
    assert.equal(CourtsSearchAnswer.parse(await response.json()).match, true);
    assert.equal(upstream.requests.length, 1);
  });

  it("no hits is a 200 with match:false and a message, charged", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url("purple elephant statute"));
    assert.equal(response.status, 200);
    const body = CourtsSearchAnswer.parse(await response.json());
    assert.equal(body.match, false);
    assert.match(body.message ?? "", /No US court opinion/);
    assert.equal(before - (await balance()), 5000n);
  });

  it("CourtListener failing on a query not cached: 503, nothing charged, no settlement", async () => {
    const before = await balance();
    const settled = (await service.store.ledger.list({ state: "settled" })).length;
    const response = await payingFetch(buyer)(url("excessive force"));
    assert.equal(response.status, 503);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.charged, false);
    assert.equal(body.error, "upstream_unavailable");
    assert.equal(response.headers.get("payment-response"), null);
    assert.equal(await balance(), before);
    assert.equal((await service.store.ledger.list({ state: "settled" })).length, settled);
  });

  it("the free sample answers without payment", async () => {
    const response = await fetch(`${service.url}/v1/courts/search?q=fourth+amendment&sample=1`);
    assert.equal(response.status, 200);
    assert.equal(CourtsSearchAnswer.parse(await response.json()).totalCount, 48213);
  });

  it("bad input is a 400 naming the parameter, before any payment is asked", async () => {
    const cases: Array<[string, string]> = [
      ["q=", "q"],
      ["q=%20%20%09", "q"],
      ["q=%00", "q"],
      ["q=%26%26+%7C%7C", "q"],
      [`q=${"x".repeat(301)}`, "q"],
      [`q=${Array.from({ length: 31 }, (_, i) => `w${i}`).join("+")}`, "q"],
      [`q=${"x".repeat(3000)}`, "q"],
      ["q=fair+use&q=due+process", "q"],
      ["q=fair+use&court=scotus", "court"],
      ["q=fair+use&sample=2", "sample"],
    ];
    for (const [query, parameter] of cases) {
      const response = await fetch(`${service.url}/v1/courts/search?${query}`);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 400, `${query.slice(0, 40)}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, parameter, query.slice(0, 40));
      assert.equal(body.charged, false);
      assert.equal(response.headers.get("payment-required"), null);
    }
    const statusResponse = await fetch(`${service.url}/v1/courts/status?verbose=1`);
    assert.equal(statusResponse.status, 400);
    assert.equal(((await statusResponse.json()) as Record<string, unknown>).parameter, "verbose");
  });

  it("/v1/courts/status is free and reports the searches sent", async () => {
    const response = await fetch(`${service.url}/v1/courts/status`);
    assert.equal(response.status, 200);
    const body = CourtsStatusAnswer.parse(await response.json());
    assert.equal(body.auth, "anonymous");
    assert.equal(body.cache.queries, 2);
    // Every request sent counts against CourtListener's windows, a retry of the failed search too.
    assert.equal(body.upstream.searchesToday, 4);
    assert.equal(body.upstream.state, "failing");
    assert.equal(body.warmQueries[0]?.query, "fourth amendment");
    assert.equal(body.warmQueries[0]?.cached, true);
  });

  it("CourtListener's minute spent (by any node): 503 with Retry-After, nothing charged, nothing sent", async () => {
    const limits = { perMinute: 5, perHour: 50, perDay: 100 };
    // Another node's searches fill the rest of the minute.
    for (;;) {
      const booking = { budget: "courtlistener", intervalMs: 0, limits, maxWaitMs: 0 };
      if (!(await service.store.upstreamBudgets.book(booking)).booked) break;
    }
    const before = await balance();
    const sent = upstream.requests.length;
    const response = await payingFetch(buyer)(url("qualified immunity"));
    assert.equal(response.status, 503);
    const retryAfter = Number(response.headers.get("retry-after"));
    assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.charged, false);
    assert.equal(body.retryAfterSec, retryAfter);
    assert.equal(response.headers.get("payment-response"), null);
    assert.equal(await balance(), before);
    assert.equal(upstream.requests.length, sent);

    const status = CourtsStatusAnswer.parse(await (await fetch(`${service.url}/v1/courts/status`)).json());
    assert.deepEqual(status.budget.perMinute, { limit: 5, used: 5, left: 0 });
  });
});
