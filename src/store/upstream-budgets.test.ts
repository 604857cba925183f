import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { openTestStore } from "../../test/test-store.ts";
import type { Store } from "./store.ts";

const T = 1_800_000_000_000;
const MIN = 60_000;
const HOUR = 3600_000;

let store: Store;
beforeEach(async () => {
  store = await openTestStore();
});
afterEach(async () => {
  await store.close();
});

const courts = { budget: "courtlistener", intervalMs: 0, limits: { perMinute: 5, perHour: 50 } };

describe("UpstreamBudgetRepository windows", () => {
  test("five a minute: the sixth booking starts when the first leaves the window", async () => {
    const starts = [];
    for (let i = 0; i < 5; i++) {
      const r = await store.upstreamBudgets.book({ ...courts, maxWaitMs: 0 }, T + i * 1000);
      assert.equal(r.booked, true);
      starts.push(r.booked ? r.startAt : 0);
    }
    assert.deepEqual(starts, [T, T + 1000, T + 2000, T + 3000, T + 4000]);
    const refused = await store.upstreamBudgets.book({ ...courts, maxWaitMs: 10_000 }, T + 5000);
    assert.deepEqual(refused, { booked: false, availableAt: T + MIN, reason: "spent", pauseReason: null });
    const waited = await store.upstreamBudgets.book({ ...courts, maxWaitMs: MIN }, T + 5000);
    assert.deepEqual(waited, { booked: true, startAt: T + MIN });
  });

  test("concurrent bookings never overfill a window", async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => store.upstreamBudgets.book({ ...courts, maxWaitMs: 0 }, T)),
    );
    assert.equal(results.filter((r) => r.booked).length, 5);
    const state = await store.upstreamBudgets.state("courtlistener", courts.limits, T);
    assert.deepEqual(state.windows.perMinute, { limit: 5, used: 5, left: 0 });
    assert.deepEqual(state.windows.perHour, { limit: 50, used: 5, left: 45 });
  });

  test("background work leaves a share of each window to buyers", async () => {
    const background = { ...courts, background: { share: 0.6 }, maxWaitMs: 0 };
    const booked = [];
    for (let i = 0; i < 5; i++) booked.push((await store.upstreamBudgets.book(background, T)).booked);
    assert.deepEqual(booked, [true, true, true, false, false]);
    assert.equal((await store.upstreamBudgets.book({ ...courts, maxWaitMs: 0 }, T)).booked, true);
    assert.equal((await store.upstreamBudgets.book({ ...courts, maxWaitMs: 0 }, T)).booked, true);
    assert.equal((await store.upstreamBudgets.book({ ...courts, maxWaitMs: 0 }, T)).booked, false);
  });

  test("the hourly window holds after the minute frees", async () => {
    const limits = { perMinute: 100, perHour: 3 };
    for (let i = 0; i < 3; i++) {
      await store.upstreamBudgets.book({ budget: "h", intervalMs: 0, limits, maxWaitMs: 0 }, T + i * MIN);
    }
    const r = await store.upstreamBudgets.book(
      { budget: "h", intervalMs: 0, limits, maxWaitMs: 0 },
      T + 5 * MIN,
    );
    assert.deepEqual(r, { booked: false, availableAt: T + HOUR, reason: "spent", pauseReason: null });
  });
});

describe("UpstreamBudgetRepository pauses", () => {
  test("a pause holds every booking of the budget, the longer pause wins, and it ends on time", async () => {
    await store.upstreamBudgets.pause("sec", T + 10 * MIN, "HTTP 429 from data.sec.gov");
    await store.upstreamBudgets.pause("sec", T + MIN, "shorter");
    const refused = await store.upstreamBudgets.book({ budget: "sec", intervalMs: 125, maxWaitMs: 1000 }, T);
    assert.deepEqual(refused, {
      booked: false,
      availableAt: T + 10 * MIN,
      reason: "paused",
      pauseReason: "HTTP 429 from data.sec.gov",
    });
    const state = await store.upstreamBudgets.state("sec", undefined, T);
    assert.equal(state.pausedUntilMs, T + 10 * MIN);
    const after = await store.upstreamBudgets.book(
      { budget: "sec", intervalMs: 125, maxWaitMs: 0 },
      T + 10 * MIN,
    );
    assert.deepEqual(after, { booked: true, startAt: T + 10 * MIN });
    assert.equal((await store.upstreamBudgets.state("sec", undefined, T + 10 * MIN + 1)).pausedUntilMs, null);
  });

  test("a pause set before the budget's first request still holds; other budgets go on", async () => {
    await store.upstreamBudgets.pause("overpass", T + 5 * MIN, "HTTP 429");
    const r = await store.upstreamBudgets.book(
      { budget: "overpass", intervalMs: 1000, maxWaitMs: 6 * MIN },
      T,
    );
    assert.deepEqual(r, { booked: true, startAt: T + 5 * MIN });
    assert.deepEqual(await store.upstreamBudgets.book({ budget: "nvd", intervalMs: 6500, maxWaitMs: 0 }, T), {
      booked: true,
      startAt: T,
    });
  });

  test("spacing still holds through book(): starts at least the interval apart", async () => {
    const a = await store.upstreamBudgets.book({ budget: "sec", intervalMs: 125, maxWaitMs: 1000 }, T);
    const b = await store.upstreamBudgets.book({ budget: "sec", intervalMs: 125, maxWaitMs: 1000 }, T);
    assert.deepEqual(
      [a, b],
      [
        { booked: true, startAt: T },
        { booked: true, startAt: T + 125 },
      ],
    );
  });
});
