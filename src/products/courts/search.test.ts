import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import {
  EMPTY_PAGE,
  type LoopbackUpstream,
  openLiveContext,
  openTestContext,
  RECORDED_PAGE,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { readHealth, searchBudget } from "./health.ts";
import { CourtsSearchQuery } from "./query.ts";
import { CourtsSearchAnswer, courtsSearch } from "./search.ts";
import { COURTS_FAMILY } from "./search-cache.ts";
import { readCourtsSettings } from "./settings.ts";
import { SEARCH_PATH } from "./upstream.ts";

const product = courtsSearch(readCourtsSettings({}));

async function search(ctx: FamilyTestContext, q: string, settingsEnv: Record<string, string> = {}) {
  const handler = courtsSearch(readCourtsSettings({ COURTLISTENER_MIN_INTERVAL_MS: "0", ...settingsEnv }));
  return handler.handle({ query: CourtsSearchQuery.parse({ q }), body: undefined }, ctx);
}

async function answerOf(ctx: FamilyTestContext, q: string, settingsEnv: Record<string, string> = {}) {
  const outcome = await search(ctx, q, settingsEnv);
  assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
  return CourtsSearchAnswer.parse(outcome.body);
}

describe("courts.search declaration", () => {
  it("declares the spec's route, price and free sample", () => {
    assert.equal(product.sku, "courts.search");
    assert.equal(product.method, "GET");
    assert.equal(product.path, "/v1/courts/search");
    assert.equal(product.price, "0.005");
    assert.equal(product.status, "live");
    assert.deepEqual(product.sample, { q: "fourth amendment" });
    assert.match(product.source?.licence.attribution ?? "", /CourtListener, Free Law Project/);
  });
});

describe("courts.search over the recorded samples (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("searches a query not yet cached live and answers with the spec's fields", async () => {
    const body = await answerOf(ctx, "  Fourth   Amendment ");
    assert.deepEqual(Object.keys(body), [
      "query",
      "hits",
      "count",
      "totalCount",
      "fetchedAt",
      "source",
      "auth",
      "match",
      "notice",
    ]);
    assert.equal(body.query, "Fourth Amendment");
    assert.equal(body.count, 20);
    assert.equal(body.hits.length, 20);
    assert.equal(body.totalCount, 48213);
    assert.equal(body.match, true);
    assert.equal(body.auth, "anonymous");
    assert.equal(
      body.source,
      "https://www.courtlistener.com/api/rest/v4/search/?type=o&q=%22fourth+amendment%22",
    );
    assert.equal(body.hits[0]?.caseName, "State v. Alder");
    assert.match(body.notice, /RECORDED SAMPLE, NOT LIVE DATA/);
    assert.match(body.notice, /Source: CourtListener, Free Law Project/);
    assert.ok(Date.now() - Date.parse(body.fetchedAt) < 60_000);
  });

  it("answers a search with no hits with 200, match:false and a message", async () => {
    const body = await answerOf(ctx, "Purple Elephant statute");
    assert.equal(body.match, false);
    assert.equal(body.count, 0);
    assert.equal(body.totalCount, 0);
    assert.deepEqual(body.hits, []);
    assert.match(
      body.message ?? "",
      /No US court opinion on CourtListener matches the exact phrase "purple elephant statute"/,
    );
  });

  it("answers a recorded 429 with 503, not charged, without pausing other searches", async () => {
    const outcome = await search(ctx, "recorded rate limit example");
    assert.equal(outcome.status, 503);
    assert.equal(outcome.body.error, "upstream_unavailable");
    assert.equal(outcome.body.charged, false);
    assert.equal(outcome.body.retryAfterSec, 38);
    assert.match(String(outcome.body.message), /limiting this service's searches/);
    assert.equal((await searchBudget(ctx, readCourtsSettings({}))).pausedUntilMs, null);
    assert.equal((await answerOf(ctx, "fourth amendment")).match, true);
  });

  it("answers a query with no recording with 503, not charged", async () => {
    const outcome = await search(ctx, "no recording for this one");
    assert.equal(outcome.status, 503);
    assert.equal(outcome.body.charged, false);
    assert.equal(outcome.body.retryAfterSec, 60);
  });
});

describe("courts.search against a live (loopback) CourtListener", () => {
  let upstream: LoopbackUpstream;
  type Answer = { status: number; headers?: Record<string, string>; body: string };
  let answer: Answer;
  /** Answers given once each, before `answer`. */
  let queued: Answer[] = [];
  const authorizations: Array<string | undefined> = [];
  const opened: FamilyTestContext[] = [];

  before(async () => {
    upstream = await startLoopbackUpstream((url, request) => {
      authorizations.push(request.headers.authorization);
      if (url.searchParams.get("q") === '"purple elephant statute"') return { status: 200, body: EMPTY_PAGE };
      return queued.shift() ?? answer;
    });
  });
  after(async () => {
    for (const ctx of opened) await ctx.close();
    await upstream.close();
  });

  async function live(env: Record<string, string> = {}) {
    const ctx = await openLiveContext(upstream.baseUrl, env);
    opened.push(ctx);
    upstream.requests.length = 0;
    authorizations.length = 0;
    queued = [];
    answer = { status: 200, headers: { "content-type": "application/json" }, body: RECORDED_PAGE };
    return ctx;
  }

  it("asks for opinions (type=o) with the built query, anonymously, and caches by normalised query", async () => {
    const ctx = await live();
    const first = await answerOf(ctx, "Fourth Amendment");
    assert.equal(upstream.requests.length, 1);
    const request = upstream.requests[0]!;
    assert.equal(request.pathname, SEARCH_PATH);
    assert.deepEqual(Object.fromEntries(request.searchParams), { type: "o", q: '"fourth amendment"' });
    assert.deepEqual(authorizations, [undefined]);
    assert.equal(first.auth, "anonymous");
    assert.doesNotMatch(first.notice, /RECORDED SAMPLE/);
    assert.equal(first.source, `${upstream.baseUrl}${SEARCH_PATH}?type=o&q=%22fourth+amendment%22`);

    // Other spellings of the same query are cache hits: CourtListener is not asked again.
    const second = await answerOf(ctx, "  fourth   AMENDMENT");
    assert.equal(upstream.requests.length, 1);
    assert.equal(second.query, "fourth AMENDMENT");
    assert.equal(second.fetchedAt, first.fetchedAt);
    assert.deepEqual(second.hits, first.hits);
    assert.deepEqual(await ctx.store.cache.keys(COURTS_FAMILY), ["fourth amendment"]);
  });

  it("concurrent buyers of one query not yet cached share one upstream request", async () => {
    const ctx = await live();
    const answers = await Promise.all(
      ["Qualified Immunity", "qualified immunity", " qualified  immunity "].map((q) => answerOf(ctx, q)),
    );
    assert.equal(upstream.requests.length, 1);
    assert.deepEqual(new Set(answers.map((a) => a.fetchedAt)).size, 1);
  });

  it("sends longer queries as every word", async () => {
    const ctx = await live();
    await answerOf(ctx, "unreasonable search of a vehicle");
    assert.equal(
      upstream.requests[0]?.searchParams.get("q"),
      "unreasonable AND search AND of AND a AND vehicle",
    );
  });

  it("caches a search with no hits too", async () => {
    const ctx = await live();
    assert.equal((await answerOf(ctx, "purple elephant statute")).match, false);
    assert.equal((await answerOf(ctx, "Purple Elephant Statute")).match, false);
    assert.equal(upstream.requests.length, 1);
  });

  it("sends the token as Authorization: Token and says auth token", async () => {
    const token = "0123456789abcdef0123456789abcdef01234567";
    const ctx = await live({ COURTLISTENER_TOKEN: token });
    const body = await answerOf(ctx, "qualified immunity", { COURTLISTENER_TOKEN: token });
    assert.equal(body.auth, "token");
    assert.deepEqual(authorizations, [`Token ${token}`]);
    assert.doesNotMatch(body.source, new RegExp(token));
  });

  it("searches again once the cached answer has expired", async () => {
    const ctx = await live();
    await answerOf(ctx, "due process");
    const doc = (await ctx.store.cache.get(COURTS_FAMILY, "due process"))!;
    await ctx.store.cache.put(COURTS_FAMILY, "due process", {
      ...doc,
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    const again = await answerOf(ctx, "due process");
    assert.equal(upstream.requests.length, 2);
    assert.notEqual(again.fetchedAt, doc.fetchedAt);
  });

  it("answers 503 and charges nothing when CourtListener fails and nothing is cached", async () => {
    const ctx = await live();
    answer = { status: 502, headers: { "retry-after": "0" }, body: "Bad Gateway" };
    const outcome = await search(ctx, "excessive force");
    assert.equal(outcome.status, 503);
    assert.equal(outcome.body.charged, false);
    assert.match(String(outcome.body.message), /nothing was charged/);
    assert.equal(upstream.requests.length, 2, "one retry");
    assert.deepEqual(await ctx.store.cache.keys(COURTS_FAMILY), []);
    const health = await readHealth(ctx.store);
    assert.match(health.lastError ?? "", /HTTP 502/);
    assert.equal((await searchBudget(ctx, readCourtsSettings({}))).pausedUntilMs, null);
  });

  it("answers 503 when CourtListener answers something that is not a search page", async () => {
    const ctx = await live();
    answer = { status: 200, headers: { "content-type": "text/html" }, body: "<html>Maintenance</html>" };
    const outcome = await search(ctx, "excessive force");
    assert.equal(outcome.status, 503);
    assert.match((await readHealth(ctx.store)).lastError ?? "", /not JSON/);
  });

  it("serves the stale copy, with its own fetchedAt, when CourtListener fails", async () => {
    const ctx = await live();
    const fresh = await answerOf(ctx, "fair use");
    const doc = (await ctx.store.cache.get(COURTS_FAMILY, "fair use"))!;
    await ctx.store.cache.put(COURTS_FAMILY, "fair use", {
      ...doc,
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    answer = { status: 503, headers: { "retry-after": "0" }, body: "down" };
    const stale = await answerOf(ctx, "fair use");
    assert.equal(stale.fetchedAt, fresh.fetchedAt);
    assert.equal(stale.totalCount, fresh.totalCount);
    assert.equal(upstream.requests.length, 3);
  });

  it("after a 429 with a long Retry-After, pauses every search until then without asking again", async () => {
    const ctx = await live();
    answer = {
      status: 429,
      headers: { "retry-after": "85774", "content-type": "application/json" },
      body: '{"detail":"Request was throttled. Rate limit exceeded: 100/day. Expected available in 85774 seconds."}',
    };
    const outcome = await search(ctx, "miranda warning");
    assert.equal(outcome.status, 503);
    assert.equal(outcome.body.charged, false);
    assert.equal(outcome.body.retryAfterSec, 85774);
    assert.equal(upstream.requests.length, 1, "a long Retry-After is not waited out");
    const budget = await searchBudget(ctx, readCourtsSettings({}));
    const pause = (budget.pausedUntilMs ?? 0) - Date.now();
    assert.ok(pause > 85_700_000 && pause <= 85_774_000, `pause ${pause} ms`);

    answer = { status: 200, body: RECORDED_PAGE };
    const next = await search(ctx, "habeas corpus");
    assert.equal(next.status, 503);
    assert.ok(Number(next.body.retryAfterSec) > 85_700);
    assert.equal(upstream.requests.length, 1, "nothing is sent during the pause");
  });

  it("waits out a short Retry-After and answers", async () => {
    const ctx = await live();
    queued = [{ status: 429, headers: { "retry-after": "1" }, body: "" }];
    const body = await answerOf(ctx, "search incident to arrest");
    assert.equal(body.match, true);
    assert.equal(upstream.requests.length, 2);
  });

  it("when the minute's searches are spent: 503 with Retry-After, not charged, CourtListener not asked", async () => {
    const ctx = await live({ COURTLISTENER_PER_MINUTE: "2" });
    const env = { COURTLISTENER_PER_MINUTE: "2" };
    await answerOf(ctx, "qualified immunity", env);
    await answerOf(ctx, "due process", env);
    const outcome = await search(ctx, "fair use", env);
    assert.equal(outcome.status, 503);
    assert.equal(outcome.body.charged, false);
    const retry = Number(outcome.body.retryAfterSec);
    assert.ok(retry > 40 && retry <= 60, `Retry-After ${retry}`);
    assert.match(String(outcome.body.message), /search budget .* is spent/);
    assert.equal(upstream.requests.length, 2);
    assert.equal((await answerOf(ctx, "Due Process", env)).match, true, "cached searches still answer");
  });
});
