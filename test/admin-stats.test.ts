// The operator figures from a store seeded with known rows (runs on SQLite, and on PostgreSQL with
// PAYCALL_TEST_DATABASE_URL set).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { parsePeriod } from "../src/admin/period.ts";
import { collectStats, type Stats } from "../src/admin/stats.ts";
import type { Store } from "../src/store/store.ts";
import {
  BASE,
  BASE_SEPOLIA,
  dayBefore,
  PAYERS,
  REFUND_TX,
  SEED_WARMERS,
  type Seeded,
  SOLANA,
  seedCounts,
  seedLedger,
  seedOperations,
} from "./admin-seed.ts";
import { openTestStore } from "./test-store.ts";

const now = new Date();
let store: Store;
let seeded: Seeded;
let stats: Stats;

before(async () => {
  store = await openTestStore();
  seeded = await seedLedger(store, now);
  await seedCounts(store);
  await seedOperations(store, now);
  const period = parsePeriod({}, now);
  assert.ok(period.ok);
  stats = await collectStats(store, period.period, { warmers: SEED_WARMERS, now });
});

after(() => store.close());

test("revenue of the last 30 days: settled rows only, exact to the atomic unit", () => {
  assert.deepEqual(stats.period, { from: dayBefore(now, 29), to: dayBefore(now, 0), days: 30 });
  assert.deepEqual(stats.revenue, { usd: "1.515", atomic: "1515000", paidCalls: 6, uniquePayers: 4 });
  assert.equal(stats.revenuePerDay.length, 30);
  assert.equal(stats.revenuePerDay[0]?.day, dayBefore(now, 29));
  const nonZero = stats.revenuePerDay.filter((d) => d.paidCalls > 0);
  assert.deepEqual(nonZero, [
    { day: dayBefore(now, 3), usd: "1.25", atomic: "1250000", paidCalls: 2 },
    { day: dayBefore(now, 2), usd: "0.005", atomic: "5000", paidCalls: 1 },
    { day: dayBefore(now, 1), usd: "0.25", atomic: "250000", paidCalls: 1 },
    { day: dayBefore(now, 0), usd: "0.01", atomic: "10000", paidCalls: 2 },
  ]);
});

test("per product: revenue, paid calls, 402s, conversion and free samples", () => {
  assert.deepEqual(stats.products, [
    {
      sku: "a.one",
      usd: "0.015",
      atomic: "15000",
      paidCalls: 3,
      challenges: 4,
      paidCounted: 2,
      samples: 3,
      indexerListed: 0,
      indexerRefused: 0,
      refusedBusy: 0,
      conversion: 0.5,
    },
    {
      sku: "b.two",
      usd: "1.5",
      atomic: "1500000",
      paidCalls: 3,
      challenges: 2,
      paidCounted: 1,
      samples: 0,
      indexerListed: 0,
      indexerRefused: 0,
      refusedBusy: 0,
      conversion: 0.5,
    },
    {
      sku: "c.three",
      usd: "0",
      atomic: "0",
      paidCalls: 0,
      challenges: 0,
      paidCounted: 0,
      samples: 1,
      indexerListed: 0,
      indexerRefused: 0,
      refusedBusy: 0,
      conversion: null,
    },
  ]);
});

test("per network", () => {
  assert.deepEqual(stats.networks, [
    { network: BASE, usd: "0.265", atomic: "265000", paidCalls: 4 },
    { network: BASE_SEPOLIA, usd: "0.25", atomic: "250000", paidCalls: 1 },
    { network: SOLANA, usd: "1", atomic: "1000000", paidCalls: 1 },
  ]);
});

test("settle failures and unknown outcomes in the period; open ones of any date", () => {
  assert.deepEqual(stats.settlements, {
    failed: { count: 1, usd: "0.005", atomic: "5000" },
    unknown: { count: 1, usd: "0.25", atomic: "250000" },
    pending: { count: 0, usd: "0", atomic: "0" },
  });
  assert.deepEqual(stats.openUncertain, { unknown: 1, pending: 1 });
});

test("refunds due exclude the refunded row; refunds made list it", () => {
  assert.deepEqual(stats.refunds.due, [
    {
      id: seeded.refundDueId,
      sku: "a.one",
      network: BASE,
      payer: PAYERS.p4,
      transaction: `0x${"cd".repeat(32)}`,
      settledAt: new Date(now.getTime() - 2 * 24 * 3600_000).toISOString(),
      usd: "0.005",
      atomic: "5000",
    },
  ]);
  assert.deepEqual(stats.refunds.dueTotal, { count: 1, usd: "0.005", atomic: "5000" });
  assert.deepEqual(stats.refunds.made, [
    {
      ledgerId: seeded.refundedId,
      transaction: REFUND_TX,
      note: "sent by hand",
      recordedAt: now.toISOString(),
      usd: "0.25",
      atomic: "250000",
    },
  ]);
  assert.deepEqual(stats.refunds.madeTotal, { count: 1, usd: "0.25", atomic: "250000" });
});

test("cache age per family, warmer health, queue depth per queue and per lane, and dead jobs", () => {
  assert.deepEqual(
    stats.cache.map((c) => [c.family, c.documents, c.newestAgeSec]),
    [
      ["ecb", 2, 3600],
      ["fred", 1, 3 * 86_400],
    ],
  );
  assert.deepEqual(
    stats.warmers.map((w) => [w.family, w.name, w.health, w.runs]),
    [
      ["ecb", "ecb.fx", "ok", 1],
      ["fred", "fred.series", "stale", 1],
      [null, "old.gone", "failing", 1],
      ["x", "x.never", "never", 0],
    ],
  );
  assert.equal(stats.warmers.find((w) => w.name === "old.gone")?.lastError, "upstream said 500");
  assert.deepEqual(stats.queues, [{ queue: "edgar.fetch", queued: 1, running: 0, done: 0, dead: 1 }]);
  assert.deepEqual(stats.lanes, [
    { lane: "fetch", due: 1, running: 0, oldestDueAgeSec: 10 },
    { lane: "warm", due: 0, running: 0, oldestDueAgeSec: null },
    { lane: "bulk", due: 0, running: 0, oldestDueAgeSec: null },
  ]);
  assert.deepEqual(
    stats.deadJobs.map((j) => [j.queue, j.key, j.attempts, j.lastError]),
    [["edgar.fetch", "k1", 1, "no such filing"]],
  );
});

test("a period is whole UTC days, inclusive; rows outside it do not count", async () => {
  const period = parsePeriod({ from: dayBefore(now, 3), to: dayBefore(now, 2) }, now);
  assert.ok(period.ok);
  const narrow = await collectStats(store, period.period, { now });
  assert.deepEqual(narrow.revenue, { usd: "1.255", atomic: "1255000", paidCalls: 3, uniquePayers: 2 });
  assert.equal(narrow.revenuePerDay.length, 2);
  assert.deepEqual(narrow.settlements.failed.count, 0);
  const old = parsePeriod({ from: dayBefore(now, 45), to: dayBefore(now, 35) }, now);
  assert.ok(old.ok);
  const before = await collectStats(store, old.period, { now });
  assert.deepEqual(before.revenue, { usd: "0.009", atomic: "9000", paidCalls: 1, uniquePayers: 1 });
  assert.equal(before.settlements.pending.count, 1);
});

test("a malformed or reversed period names the parameter", () => {
  assert.deepEqual(parsePeriod({ from: "2026-02-30" }), {
    ok: false,
    parameter: "from",
    message: 'from: expected a date YYYY-MM-DD, got "2026-02-30"',
  });
  const bad = parsePeriod({ to: "yesterday" });
  assert.equal(bad.ok || bad.parameter, "to");
  const reversed = parsePeriod({ from: "2026-03-02", to: "2026-03-01" });
  assert.equal(reversed.ok || reversed.parameter, "from");
  const long = parsePeriod({ from: "2020-01-01", to: "2026-01-01" });
  assert.equal(long.ok || long.parameter, "from");
  const one = parsePeriod({ from: "2026-03-01", to: "2026-03-01" });
  assert.ok(one.ok);
  assert.deepEqual(one.period.days, ["2026-03-01"]);
  assert.equal(one.period.endsBefore, "2026-03-02T00:00:00.000Z");
});
