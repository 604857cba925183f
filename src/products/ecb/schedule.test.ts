// The ECB publishes around 16:00 CET on TARGET days: the warmer runs just after each publication, asks only
// for what changed since its last fetch (updatedAfter), and retries while the day's rates are not out yet.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { Worker } from "../../jobs/worker.ts";
import { type LoopbackUpstream, openTestContext, startLoopbackUpstream } from "./harness.test-helper.ts";
import { ECB_RECORDINGS_DIR, ecbFamily } from "./index.ts";
import { easterSunday, isTargetDay, latestPublicationDay, nextEcbRefreshAt, refreshAt } from "./schedule.ts";
import { isFresh } from "./status.ts";
import { startPeriodFor } from "./upstream.ts";
import {
  type CachedSeries,
  ECB_FAMILY,
  ECB_INDEX_KEY,
  type EcbIndex,
  ecbFxWarmer,
  warmEcbFx,
} from "./warmer.ts";

const recordedCsv = fs.readFileSync(path.join(ECB_RECORDINGS_DIR, "exr-daily.csv"), "utf8");
const at = (iso: string) => new Date(iso);

describe("the TARGET calendar", () => {
  it("knows Easter and the fixed TARGET holidays, and weekends", () => {
    assert.deepEqual([2024, 2025, 2026, 2027].map(easterSunday), [
      "2024-03-31",
      "2025-04-20",
      "2026-04-05",
      "2027-03-28",
    ]);
    for (const day of ["2026-01-01", "2026-04-03", "2026-04-06", "2026-05-01", "2026-12-25", "2026-12-26"])
      assert.equal(isTargetDay(day), false, day);
    for (const day of ["2026-11-21", "2026-11-22"]) assert.equal(isTargetDay(day), false, day);
    for (const day of ["2026-11-24", "2026-04-02", "2026-04-07", "2026-12-24", "2026-12-31"])
      assert.equal(isTargetDay(day), true, day);
  });

  it("refreshes at 16:10 Frankfurt time: 15:10 UTC in winter, 14:10 UTC in summer", () => {
    assert.equal(refreshAt("2026-11-24").toISOString(), "2026-11-24T15:10:00.000Z");
    assert.equal(refreshAt("2026-07-01").toISOString(), "2026-07-01T14:10:00.000Z");
    // The days around the clock changes (29 March and 25 October 2026).
    assert.equal(refreshAt("2026-03-27").toISOString(), "2026-03-27T15:10:00.000Z");
    assert.equal(refreshAt("2026-03-30").toISOString(), "2026-03-30T14:10:00.000Z");
    assert.equal(refreshAt("2026-10-26").toISOString(), "2026-10-26T15:10:00.000Z");
  });

  it("the next run: later the same day, or the next TARGET day after weekends and holidays", () => {
    const next = (iso: string) => nextEcbRefreshAt(at(iso)).toISOString();
    assert.equal(next("2026-11-24T09:00:00Z"), "2026-11-24T15:10:00.000Z");
    assert.equal(next("2026-11-24T15:10:00Z"), "2026-11-25T15:10:00.000Z");
    assert.equal(next("2026-11-20T15:30:00Z"), "2026-11-23T15:10:00.000Z", "Friday → Monday");
    assert.equal(next("2026-12-24T16:00:00Z"), "2026-12-28T15:10:00.000Z", "Christmas");
    assert.equal(next("2026-04-02T15:00:00Z"), "2026-04-07T14:10:00.000Z", "Easter");
    assert.equal(next("2026-12-31T16:00:00Z"), "2027-01-04T15:10:00.000Z", "New Year");
  });

  it("the rates the cache should hold: the latest TARGET day whose refresh time has passed", () => {
    assert.equal(latestPublicationDay(at("2026-11-22T12:00:00Z")), "2026-11-20");
    assert.equal(latestPublicationDay(at("2026-11-24T10:00:00Z")), "2026-11-23");
    assert.equal(latestPublicationDay(at("2026-11-24T15:11:00Z")), "2026-11-24");
  });
});

describe("the worker runs ecb.fx on the publication calendar", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("at once without a success; then not again until the next publication, not 24 hours later", async () => {
    const worker = new Worker(ctx.service, [ecbFamily(ctx.service.config)]);
    assert.deepEqual(await worker.scheduleWarmers(at("2026-11-20T15:12:00Z")), ["ecb.fx"]);
    await ctx.service.store.jobs.purgeDone(new Date("2100-01-01"));
    await ctx.service.store.jobs.complete((await ctx.service.store.jobs.claim(["warmer"], 60_000))!.id);
    const run = await ctx.service.store.warmerRuns.start("ecb.fx", at("2026-11-20T15:12:00Z"));
    await ctx.service.store.warmerRuns.finish(run, { ok: true, counts: {} }, at("2026-11-20T15:12:05Z"));
    for (const iso of ["2026-11-21T15:30:00Z", "2026-11-22T23:00:00Z", "2026-11-23T15:09:00Z"])
      assert.deepEqual(await worker.scheduleWarmers(at(iso)), [], iso);
    assert.deepEqual(await worker.scheduleWarmers(at("2026-11-23T15:11:00Z")), ["ecb.fx"]);
    assert.equal(ecbFxWarmer.nextRunAt?.(null).getTime(), 0);
  });
});

describe("ecb.fx refreshes with updatedAfter", () => {
  let upstream: LoopbackUpstream;
  let ctx: FamilyTestContext;
  let answer: () => { status: number; headers?: Record<string, string>; body: string };
  before(async () => {
    answer = () => ({ status: 200, headers: { "content-type": "text/csv" }, body: recordedCsv });
    upstream = await startLoopbackUpstream(() => answer());
    ctx = await openTestContext({ UPSTREAMS: "live", ECB_BASE_URL: upstream.baseUrl });
  });
  after(async () => {
    await ctx.close();
    await upstream.close();
  });

  const usd = () => ctx.store.cache.get<CachedSeries>(ECB_FAMILY, "USD");

  it("the first run fetches the whole window", async () => {
    const counts = await warmEcbFx(ctx, at("2026-11-20T16:30:00Z"));
    assert.equal(counts.latestDate, "2026-11-20");
    assert.equal(upstream.requests[0]?.searchParams.get("updatedAfter"), null);
  });

  it("the next asks only for changes since the last fetch and lays them over the cache", async () => {
    const [header, ...rows] = recordedCsv.trim().split("\n");
    const monday = ["USD", "JPY"].map((code) =>
      rows
        .filter((r) => r.startsWith(`EXR.D.${code}.`))
        .at(-1)!
        .replace("2026-11-20", "2026-11-23"),
    );
    answer = () => ({
      status: 200,
      headers: { "content-type": "text/csv" },
      body: [header, ...monday].join("\n"),
    });
    const counts = await warmEcbFx(ctx, at("2026-11-23T15:20:00Z"));
    const asked = upstream.requests.at(-1)!;
    assert.match(asked.searchParams.get("updatedAfter") ?? "", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.equal(counts.changedCurrencies, 2);
    assert.equal(counts.currencies, 23);
    assert.equal(counts.latestDate, "2026-11-23");
    const after = (await usd())!.body;
    assert.equal(after.observations.at(-1)?.date, "2026-11-23");
    assert.ok(
      after.observations.some((o) => o.date === "2026-11-20"),
      "earlier rates kept",
    );
    assert.ok(after.observations[0]!.date >= startPeriodFor(at("2026-11-23T15:20:00Z")), "window trimmed");
    const index = await ctx.store.cache.get<EcbIndex>(ECB_FAMILY, ECB_INDEX_KEY);
    assert.equal(index?.body.currencies.find((c) => c.currency === "GBP")?.latestDate, "2026-11-20");
  });

  it("nothing new yet just after the publication time (ECB's 404): fails, so the worker retries soon", async () => {
    answer = () => ({ status: 404, headers: { "content-type": "text/plain" }, body: "No results found." });
    const fetchedAt = (await usd())!.fetchedAt;
    await assert.rejects(
      warmEcbFx(ctx, at("2026-11-24T15:20:00Z")),
      /has not published the reference rates of 2026-11-24 yet/,
    );
    assert.equal((await usd())!.fetchedAt, fetchedAt, "the cache is left as it was");
  });

  it("hours later with still nothing new, the run succeeds and keeps the latest rates", async () => {
    const counts = await warmEcbFx(ctx, at("2026-11-24T18:00:00Z"));
    assert.equal(counts.changedCurrencies, 0);
    assert.equal(counts.latestDate, "2026-11-23");
  });
});

describe("macro.ecb.status freshness on the calendar", () => {
  it("live rates stay fresh over a weekend and turn stale once a publication is missing", () => {
    const index = {
      body: { source: "", latestDate: "2026-11-20", currencies: [] },
      recordedSample: false,
    };
    const lastSuccess = Date.parse("2026-11-20T15:12:00Z");
    assert.equal(isFresh(index, lastSuccess, at("2026-11-22T20:00:00Z")), true, "Sunday: Friday's rates");
    assert.equal(isFresh(index, lastSuccess, at("2026-11-23T15:05:00Z")), true, "Monday, before publication");
    assert.equal(isFresh(index, lastSuccess, at("2026-11-23T15:30:00Z")), false, "Monday's rates not cached");
    assert.equal(isFresh(undefined, lastSuccess, at("2026-11-22T20:00:00Z")), false);
  });

  it("recorded samples (fixed dates) are fresh while the warmer succeeded within two days", () => {
    const index = { body: { source: "", latestDate: "2026-11-20", currencies: [] }, recordedSample: true };
    const now = at("2027-02-01T12:00:00Z");
    assert.equal(isFresh(index, now.getTime() - 3600_000, now), true);
    assert.equal(isFresh(index, now.getTime() - 3 * 86_400_000, now), false);
  });
});
