import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import {
  EMPTY_PAGE,
  type LoopbackUpstream,
  openLiveContext,
  openTestContext,
  RECORDED_PAGE,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { CourtsSearchQuery } from "./query.ts";
import { CourtsSearchAnswer, courtsSearch } from "./search.ts";
import { COURTS_FAMILY } from "./search-cache.ts";
import { readCourtsSettings } from "./settings.ts";
import { CourtsStatusAnswer, courtsStatus } from "./status.ts";
import { COURTS_WARM_RESUME_QUEUE, courtsWarmer, courtsWarmResume, warmCourtQueries } from "./warmer.ts";

const WARM_ENV = { COURTS_WARM_QUERIES: "Fourth Amendment, purple elephant statute, fair use" };

async function statusOf(ctx: FamilyTestContext, env: Record<string, string> = WARM_ENV) {
  // The same gap as the warmer's: the first caller's spec is the one the shared client keeps.
  const settings = readCourtsSettings({ COURTLISTENER_MIN_INTERVAL_MS: "0", ...env });
  const outcome = await courtsStatus(settings).handle({ query: {}, body: undefined }, ctx);
  assert.equal(outcome.status, 200);
  return CourtsStatusAnswer.parse(outcome.body);
}

describe("courts.warm warmer and courts.status, live (loopback)", () => {
  let upstream: LoopbackUpstream;
  let throttle = false;
  let ctx: FamilyTestContext;
  const warmer = courtsWarmer(readCourtsSettings({ ...WARM_ENV, COURTLISTENER_MIN_INTERVAL_MS: "0" }));

  before(async () => {
    upstream = await startLoopbackUpstream((url) => {
      if (throttle) return { status: 429, headers: { "retry-after": "3600" }, body: "" };
      const q = url.searchParams.get("q");
      if (q === '"purple elephant statute"') return { status: 200, body: EMPTY_PAGE };
      if (q === '"fourth amendment"') return { status: 200, body: RECORDED_PAGE };
      return { status: 404, body: '{"detail":"Not found."}' };
    });
    ctx = await openLiveContext(upstream.baseUrl, WARM_ENV);
  });
  after(async () => {
    await ctx.close();
    await upstream.close();
  });

  it("is declared to run daily; status is a free product", () => {
    assert.equal(warmer.name, "courts.warm");
    assert.equal(warmer.everyMs, 24 * 3600_000);
    const status = courtsStatus(readCourtsSettings({}));
    assert.equal(status.path, "/v1/courts/status");
    assert.equal(status.price, "0");
  });

  it("status before any run: nothing cached, upstream unknown, anonymous", async () => {
    const status = await statusOf(ctx);
    assert.equal(status.auth, "anonymous");
    assert.equal(status.mode, "live");
    assert.equal(status.upstream.baseUrl, upstream.baseUrl);
    assert.equal(status.upstream.state, "unknown");
    assert.equal(status.upstream.searchesToday, 0);
    assert.equal(status.cache.queries, 0);
    assert.equal(status.cache.ttlHours, 24);
    assert.equal(status.cache.phraseMaxWords, 3);
    assert.equal(status.warmer.runs, 0);
    assert.deepEqual(
      status.warmQueries.map((w) => [w.query, w.cached]),
      [
        ["Fourth Amendment", false],
        ["purple elephant statute", false],
        ["fair use", false],
      ],
    );
  });

  it("refreshes every warm query, one request each, and keeps going past a failure", async () => {
    const counts = await runWarmerRecorded(warmer, ctx);
    assert.equal(upstream.requests.length, 3);
    assert.deepEqual(
      upstream.requests.map((r) => r.searchParams.get("q")),
      ['"fourth amendment"', '"purple elephant statute"', '"fair use"'],
    );
    assert.equal(counts.refreshed, 2);
    assert.equal(counts.failed, 1);
    assert.equal(counts.deferred, 0);
    assert.equal(counts.hits, 20);
    assert.match(JSON.stringify(counts.errors), /fair use.*HTTP 404/);
    assert.deepEqual(await ctx.store.cache.keys(COURTS_FAMILY), [
      "fourth amendment",
      "purple elephant statute",
    ]);
  });

  it("a buyer of a warm query is served from the cache", async () => {
    const search = courtsSearch(readCourtsSettings({}));
    const outcome = await search.handle(
      { query: CourtsSearchQuery.parse({ q: "fourth amendment" }), body: undefined },
      ctx,
    );
    assert.equal(outcome.status, 200);
    assert.equal(CourtsSearchAnswer.parse(outcome.body).totalCount, 48213);
    assert.equal(upstream.requests.length, 3);
  });

  it("status after the run: counts, cached warm queries, upstream health and searches today", async () => {
    const status = await statusOf(ctx);
    assert.equal(status.warmer.runs, 1);
    assert.equal(status.warmer.lastOk, true);
    assert.equal(status.warmer.counts?.refreshed, 2);
    assert.equal(status.cache.queries, 2);
    assert.equal(status.upstream.searchesToday, 3);
    assert.equal(status.upstream.lastStatus, 404);
    assert.equal(status.upstream.state, "failing");
    const [fourth, purple, fair] = status.warmQueries;
    assert.equal(fourth?.cached, true);
    assert.equal(fourth?.fresh, true);
    assert.equal(fourth?.totalCount, 48213);
    assert.equal(fourth?.recordedSample, false);
    assert.equal(purple?.totalCount, 0);
    assert.equal(fair?.cached, false);
  });

  it("status shows what is left of CourtListener's windows", async () => {
    const status = await statusOf(ctx);
    assert.deepEqual(status.budget.perMinute, { limit: 5, used: 3, left: 2 });
    assert.deepEqual(status.budget.perHour, { limit: 50, used: 3, left: 47 });
    assert.deepEqual(status.budget.perDay, { limit: 100, used: 3, left: 97 });
    assert.equal(status.budget.warmSharePercent, 60);
  });

  it("at a 429 queues the rest for when the pause ends; during the pause nothing is sent", async () => {
    // A context of its own: the minute's warmer share is already spent by the runs above.
    const ctx = await openLiveContext(upstream.baseUrl, WARM_ENV);
    throttle = true;
    upstream.requests.length = 0;
    const counts = await runWarmerRecorded(warmer, ctx).finally(() => {
      throttle = false;
    });
    assert.equal(counts.refreshed, 0);
    assert.equal(counts.deferred, 3);
    assert.equal(upstream.requests.length, 1);
    const job = await ctx.store.jobs.get(COURTS_WARM_RESUME_QUEUE, "resume");
    assert.equal(job?.state, "queued");
    assert.deepEqual(JSON.parse(job?.payload ?? "{}").queries, [
      "Fourth Amendment",
      "purple elephant statute",
      "fair use",
    ]);
    const due = Date.parse(job?.run_at ?? "") - Date.now();
    assert.ok(due > 3500_000 && due <= 3600_000, `resume due in ${due} ms`);
    const status = await statusOf(ctx);
    assert.equal(status.upstream.state, "throttled");
    assert.ok(status.upstream.pauseLeftSec > 3500 && status.upstream.pauseLeftSec <= 3600);
    assert.equal(status.upstream.lastStatus, 429);
    assert.equal(status.warmer.lastOk, true);

    // The resume job, run early, sends nothing and queues itself again under the other key.
    await courtsWarmResume(readCourtsSettings(WARM_ENV))(JSON.parse(job?.payload ?? "{}"), ctx);
    assert.equal(upstream.requests.length, 1);
    assert.equal((await ctx.store.jobs.get(COURTS_WARM_RESUME_QUEUE, "resume-again"))?.state, "queued");
    await ctx.close();
  });
});

describe("courts.warm within CourtListener's windows (loopback)", () => {
  let upstream: LoopbackUpstream;
  let queued: Array<{ status: number; headers?: Record<string, string>; body: string }> = [];
  const opened: FamilyTestContext[] = [];
  before(async () => {
    upstream = await startLoopbackUpstream(() => queued.shift() ?? { status: 200, body: RECORDED_PAGE });
  });
  after(async () => {
    for (const c of opened) await c.close();
    await upstream.close();
  });

  it("uses only its share of the hour and queues the rest for when the window frees", async () => {
    const env = { ...WARM_ENV, COURTLISTENER_PER_HOUR: "3", COURTS_WARM_SHARE_PERCENT: "100" };
    const c = await openLiveContext(upstream.baseUrl, env);
    opened.push(c);
    upstream.requests.length = 0;
    const settings = readCourtsSettings({ ...env, COURTLISTENER_MIN_INTERVAL_MS: "0" });
    const counts = await warmCourtQueries(c, settings);
    assert.equal(counts.refreshed, 2, "one search of the hour stays the buyers'");
    assert.equal(counts.deferred, 1);
    assert.equal(upstream.requests.length, 2);
    const job = await c.store.jobs.get(COURTS_WARM_RESUME_QUEUE, "resume");
    assert.deepEqual(JSON.parse(job?.payload ?? "{}").queries, ["fair use"]);
    const due = Date.parse(job?.run_at ?? "") - Date.now();
    assert.ok(due > 3500_000 && due <= 3600_000, `due in ${due} ms`);

    // A buyer still finds the search kept for buyers.
    const buyer = courtsSearch(settings);
    const outcome = await buyer.handle(
      { query: CourtsSearchQuery.parse({ q: "due process" }), body: undefined },
      c,
    );
    assert.equal(outcome.status, 200);
  });

  it("waits out a short Retry-After (CourtListener's 429 body) and goes on", async () => {
    // The whole minute's share: the refused attempt counts too.
    const env = { ...WARM_ENV, COURTS_WARM_SHARE_PERCENT: "100" };
    const c = await openLiveContext(upstream.baseUrl, env);
    opened.push(c);
    upstream.requests.length = 0;
    queued = [
      {
        status: 429,
        headers: { "retry-after": "1", "content-type": "application/json" },
        body: '{"detail":"Request was throttled. Rate limit exceeded: 5/min. Expected available in 1 seconds."}',
      },
    ];
    const counts = await warmCourtQueries(
      c,
      readCourtsSettings({ ...env, COURTLISTENER_MIN_INTERVAL_MS: "0" }),
    );
    assert.equal(counts.refreshed, 3);
    assert.equal(counts.deferred, 0);
    assert.equal(upstream.requests.length, 4);
  });
});

describe("courts.status with a token, over the recordings", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("says token, replay and the public base URL; the replay warmer refreshes the recorded query", async () => {
    const env = { COURTLISTENER_TOKEN: "0123456789abcdef0123456789abcdef01234567" };
    const counts = await runWarmerRecorded(
      courtsWarmer(readCourtsSettings({ ...env, COURTLISTENER_MIN_INTERVAL_MS: "0" })),
      ctx,
    );
    assert.equal(counts.queries, 8);
    assert.equal(counts.refreshed, 1);
    assert.equal(counts.failed, 7);
    const status = await statusOf(ctx, env);
    assert.equal(status.auth, "token");
    assert.equal(status.upstream.minIntervalMs, 0);
    assert.equal(status.mode, "replay");
    assert.equal(status.upstream.baseUrl, "https://www.courtlistener.com");
    assert.equal(status.warmQueries[0]?.query, "fourth amendment");
    assert.equal(status.warmQueries[0]?.recordedSample, true);
  });
});
