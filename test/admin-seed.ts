// Known ledger rows, counts, cache documents, warmer runs and jobs for the operator-view tests, and the figures
// they must give. Dates are whole days before `now`, so each row falls on a known UTC day.
import type { DeclaredWarmer } from "../src/admin/stats.ts";
import type { LedgerEntry } from "../src/store/ledger.ts";
import type { Store } from "../src/store/store.ts";

const DAY_MS = 24 * 3600_000;
export const BASE = "eip155:8453";
export const BASE_SEPOLIA = "eip155:84532";
export const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
export const PAYERS = {
  p1: "0x1111111111111111111111111111111111111111",
  p2: "0x2222222222222222222222222222222222222222",
  p3: "0x3333333333333333333333333333333333333333",
  p4: "0x4444444444444444444444444444444444444444",
};
export const REFUND_TX = `0x${"ab".repeat(32)}`;

export function dayBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10);
}

function entry(sku: string, network: string, payer: string | null, amount: string): LedgerEntry {
  return {
    sku,
    requestHash: `hash-${Math.random()}`,
    network,
    payer,
    amount,
    asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    payTo: "0x9999999999999999999999999999999999999999",
    transaction: `0x${"cd".repeat(32)}`,
    responseSha256: "0".repeat(64),
    state: "settled",
  };
}

export interface Seeded {
  /** Settled, never delivered, two days old: owed a refund. */
  refundDueId: number;
  /** Settled, never delivered, three days old, its refund already recorded. */
  refundedId: number;
  /** Settled and delivered today: not owed anything. */
  deliveredId: number;
}

async function settledAt(store: Store, e: LedgerEntry, at: Date, delivered = true): Promise<number> {
  if (delivered) return store.ledger.record(e, at);
  const id = await store.ledger.record({ ...e, state: "pending" }, at);
  await store.ledger.resolve(id, "settled", e.transaction, null, { now: at });
  return id;
}

export async function seedLedger(
  store: Store,
  now: Date,
  extra: { sku?: string; payer?: string } = {},
): Promise<Seeded> {
  const ago = (days: number, ms = 0) => new Date(now.getTime() - days * DAY_MS - ms);
  const deliveredId = await settledAt(store, entry("a.one", BASE, PAYERS.p1, "5000"), ago(0));
  await settledAt(store, entry("a.one", BASE, PAYERS.p2, "5000"), ago(0));
  await settledAt(store, entry("b.two", BASE_SEPOLIA, PAYERS.p1, "250000"), ago(1));
  await settledAt(store, entry("b.two", SOLANA, PAYERS.p3, "1000000"), ago(3));
  const refundDueId = await settledAt(store, entry("a.one", BASE, PAYERS.p4, "5000"), ago(2), false);
  const refundedId = await settledAt(store, entry("b.two", BASE, PAYERS.p3, "250000"), ago(3), false);
  const refund = await store.refunds.record(
    refundedId,
    { transaction: REFUND_TX, note: "sent by hand" },
    now,
  );
  if (refund.outcome !== "recorded") throw new Error(`seed refund: ${refund.outcome}`);
  // Not settled, or outside the last 30 days: no revenue.
  await store.ledger.record({ ...entry("a.one", BASE, PAYERS.p2, "5000"), state: "failed" }, ago(1));
  await store.ledger.record({ ...entry("b.two", BASE, PAYERS.p2, "250000"), state: "unknown" }, ago(0));
  await store.ledger.record({ ...entry("a.one", BASE, PAYERS.p2, "5000"), state: "pending" }, ago(40));
  await settledAt(store, entry("a.one", BASE, PAYERS.p2, "9000"), ago(40));
  if (extra.sku || extra.payer)
    await settledAt(store, entry(extra.sku ?? "a.one", BASE, extra.payer ?? PAYERS.p1, "1"), ago(5));
  return { refundDueId, refundedId, deliveredId };
}

/** Counted through the buffered counters and flushed, as the serving nodes do. */
export async function seedCounts(store: Store): Promise<void> {
  const counts = store.dailyCounts;
  for (let i = 0; i < 4; i++) counts.count("a.one", "challenge");
  for (let i = 0; i < 2; i++) counts.count("a.one", "paid");
  for (let i = 0; i < 3; i++) counts.count("a.one", "sample");
  counts.count("b.two", "challenge", 2);
  counts.count("b.two", "paid");
  counts.count("c.three", "sample");
  await counts.flush();
}

export const SEED_WARMERS: DeclaredWarmer[] = [
  { family: "ecb", name: "ecb.fx", everyMs: 3600_000 },
  { family: "fred", name: "fred.series", everyMs: DAY_MS },
  { family: "x", name: "x.never", everyMs: 1000 },
];

export async function seedOperations(store: Store, now: Date): Promise<void> {
  const ago = (ms: number) => new Date(now.getTime() - ms);
  await store.cache.put("ecb", "a", { body: { a: 1 }, fetchedAt: ago(2 * 3600_000).toISOString() });
  await store.cache.put("ecb", "b", { body: { b: 1 }, fetchedAt: ago(3600_000).toISOString() });
  await store.cache.put("fred", "c", { body: { c: 1 }, fetchedAt: ago(3 * DAY_MS).toISOString() });

  const fx = await store.warmerRuns.start("ecb.fx", ago(600_000));
  await store.warmerRuns.finish(fx, { ok: true, counts: { series: 3 } }, ago(590_000));
  const fred = await store.warmerRuns.start("fred.series", ago(5 * DAY_MS));
  await store.warmerRuns.finish(fred, { ok: true, counts: {} }, ago(5 * DAY_MS - 1000));
  const gone = await store.warmerRuns.start("old.gone", ago(DAY_MS));
  await store.warmerRuns.finish(gone, { ok: false, error: "upstream said 500" }, ago(DAY_MS - 1000));

  await store.jobs.enqueue("edgar.fetch", "k1", {}, { maxAttempts: 1 }, ago(60_000));
  await store.jobs.enqueue("edgar.fetch", "k2", {}, { runAt: ago(10_000) }, ago(60_000));
  const job = await store.jobs.claim(["edgar.fetch"], 60_000, ago(30_000));
  if (!job) throw new Error("seed: no job claimed");
  await store.jobs.fail(job, "no such filing", 5000, ago(20_000));
}
