// batch-settlement gauges, read from the store when Prometheus scrapes (one read serves every gauge for a few
// seconds): open channels, what they hold and owe, the claims, settlements and refunds made, and the on-chain
// transactions the scheme saved against one per call.
import { Gauge, type Registry } from "prom-client";
import type { BatchFigures } from "../store/batch-operations.ts";
import type { Store } from "../store/store.ts";

const SNAPSHOT_MAX_AGE_MS = 5000;
const usd = (atomic: bigint) => Number(atomic) / 1e6;

export function registerBatchGauges(registers: Registry[], store: Store): void {
  let cached: { at: number; figures: Promise<BatchFigures | undefined> } | undefined;
  const read = () => {
    const now = Date.now();
    if (!cached || now - cached.at >= SNAPSHOT_MAX_AGE_MS) {
      cached = { at: now, figures: store.batchOperations.figures().catch(() => undefined) };
    }
    return cached.figures;
  };
  const gauge = (name: string, help: string, value: (f: BatchFigures) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const figures = await read();
        if (figures) this.set(value(figures));
      },
    });
  gauge(
    "paycall_batch_channels_open",
    "batch-settlement channels open with this seller",
    (f) => f.openChannels,
  );
  gauge("paycall_batch_deposits_held_usd", "Deposited into open channels and not yet claimed (USD)", (f) =>
    usd(f.heldAtomic),
  );
  gauge(
    "paycall_batch_vouchers_unclaimed",
    "Voucher sales not yet claimed on chain",
    (f) => f.unclaimedVouchers,
  );
  gauge("paycall_batch_unclaimed_usd", "Charged by vouchers and not yet claimed on chain (USD)", (f) =>
    usd(f.unclaimedAtomic),
  );
  gauge(
    "paycall_batch_operations_undecided",
    "Claims, settlements and refunds whose answer was lost",
    (f) => f.unknown,
  );
  gauge(
    "paycall_batch_operations_unreachable",
    "Claims and settlements whose answer was lost and whose chain check could not reach the chain (an operator must look)",
    (f) => f.chain.unreachable,
  );
  gauge(
    "paycall_batch_transactions_saved",
    "Paid batch-settlement calls less the on-chain transactions they took (deposits, claims, settlements, refunds)",
    (f) => Math.max(0, f.calls - f.transactions),
  );
  new Gauge({
    name: "paycall_batch_operations",
    help: "batch-settlement operations done on chain, by kind (claim, settle, refund), and what they moved (USD); kind lost: charges written off, their channel drained on chain before they were claimed",
    labelNames: ["kind", "measure"],
    registers,
    async collect() {
      const figures = await read();
      if (!figures) return;
      for (const [kind, done] of [
        ["claim", figures.claims],
        ["settle", figures.settlements],
        ["refund", figures.refunds],
        ["lost", figures.lost],
      ] as const) {
        this.set({ kind, measure: "count" }, done.count);
        this.set({ kind, measure: "usd" }, usd(done.atomic));
      }
    },
  });
}
