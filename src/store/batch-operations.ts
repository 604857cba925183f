// The batch-settlement channel manager's on-chain operations (claims, settlements, refunds), one row each, and
// the figures the operator reads: what the channels hold, what their vouchers charged and not yet claimed, and
// the on-chain transactions the scheme saved against one per call.
import { sql } from "kysely";
import { type UnreachableChecks, unreachableChecks } from "./chain-alarm.ts";
import { Repository } from "./repository.ts";
import type { BatchOperationTable } from "./schema.ts";

export type BatchOperationKind = BatchOperationTable["kind"];

/** One channel of a claim, and the total the claim asked the contract to record as claimed. */
export interface ClaimedTotal {
  channelId: string;
  totalClaimed: string;
}

export interface BatchOperation {
  /** The row's id, once recorded. */
  id?: number;
  network: string;
  kind: BatchOperationKind;
  channelId?: string | null;
  vouchers: number;
  amount: string;
  transaction: string | null;
  state: BatchOperationTable["state"];
  errorReason?: string | null;
  /** A claim's channels and totals (kept so a claim whose answer was lost can be looked up on chain). */
  claims?: ClaimedTotal[];
}

/** Undecided operations the chain could not be asked about: an operator must look. */
export type BatchChainAlarm = UnreachableChecks;

/** One kind's operations that went through, and what they moved (atomic USDC). */
interface DoneFigures {
  count: number;
  atomic: bigint;
}

export interface BatchFigures {
  openChannels: number;
  /** Deposited and not yet claimed: what the channels still hold for their buyers and this seller. */
  heldAtomic: bigint;
  /** Charged by vouchers and not yet claimed on chain. */
  unclaimedAtomic: bigint;
  /** Voucher sales whose cumulative total is above what was claimed (or written off) of their channel. */
  unclaimedVouchers: number;
  claims: DoneFigures;
  settlements: DoneFigures;
  refunds: DoneFigures;
  /** Charges written off: their channel's balance on chain fell below them before they were claimed. */
  lost: DoneFigures;
  /** Operations whose answer was lost (the chain decides them). */
  unknown: number;
  /** Of those, the ones the chain could not be asked about at their last check. */
  chain: BatchChainAlarm;
  /** Paid calls made with batch-settlement (deposits and vouchers), and the on-chain transactions they took. */
  calls: number;
  transactions: number;
}

/**
 * What a channel's vouchers charged and the channel manager has still to claim: above what is claimed and above
 * what was written off (atomic USDC).
 */
export function owing(charged: string, claimed: string, writtenOffTo: string | bigint = 0n): bigint {
  const paid = BigInt(claimed) > BigInt(writtenOffTo) ? BigInt(claimed) : BigInt(writtenOffTo);
  return BigInt(charged) > paid ? BigInt(charged) - paid : 0n;
}

export class BatchOperationRepository extends Repository {
  async record(op: BatchOperation, now = new Date()): Promise<void> {
    await this.db
      .insertInto("batch_operations")
      .values({
        created_at: now.toISOString(),
        network: op.network,
        kind: op.kind,
        channel_id: op.channelId ?? null,
        vouchers: op.vouchers,
        amount: op.amount,
        transaction: op.transaction,
        state: op.state,
        error_reason: op.errorReason ?? null,
        claims: op.claims ? JSON.stringify(op.claims) : null,
        chain_checked_at: null,
        chain_error: null,
      })
      .execute();
  }

  /**
   * A channel's charges the chain can no longer pay, written off: the `lost` row, and the channel's charges up
   * to `upTo` (their cumulative total) no longer owed, as one step.
   */
  async writeOff(op: BatchOperation & { channelId: string }, upTo: bigint, now = new Date()): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await new BatchOperationRepository(trx).record(op, now);
      await trx
        .updateTable("batch_channels")
        .set({ written_off_to: upTo.toString() })
        .where("network", "=", op.network)
        .where("channel_id", "=", op.channelId.toLowerCase())
        .execute();
    });
  }

  /** The network's claims and settlements whose answer was lost, oldest first: the chain decides them. */
  async undecided(network: string): Promise<Array<BatchOperation & { id: number }>> {
    const rows = await this.db
      .selectFrom("batch_operations")
      .selectAll()
      .where("network", "=", network)
      .where("kind", "in", ["claim", "settle"])
      .where("state", "=", "unknown")
      .orderBy("id")
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      network: r.network,
      kind: r.kind,
      channelId: r.channel_id,
      vouchers: r.vouchers,
      amount: r.amount,
      transaction: r.transaction,
      state: r.state,
      errorReason: r.error_reason,
      ...(r.claims ? { claims: JSON.parse(r.claims) as ClaimedTotal[] } : {}),
    }));
  }

  /** Records what the chain decided of an operation whose answer was lost (and what it moved, when done). */
  async decide(id: number, state: "done" | "failed", amount: string, now = new Date()): Promise<void> {
    await this.db
      .updateTable("batch_operations")
      .set({ state, amount, chain_checked_at: now.toISOString(), chain_error: null })
      .where("id", "=", id)
      .where("state", "=", "unknown")
      .execute();
  }

  /** Records that the chain could not be asked about an undecided operation (the alarm until it answers). */
  async recordChainError(id: number, error: string, now = new Date()): Promise<void> {
    await this.db
      .updateTable("batch_operations")
      .set({ chain_checked_at: now.toISOString(), chain_error: error })
      .where("id", "=", id)
      .execute();
  }

  /** When the last claim of the network went through (ms since the epoch), or 0. */
  async lastClaimMs(network: string): Promise<number> {
    const row = await this.db
      .selectFrom("batch_operations")
      .select((eb) => eb.fn.max("created_at").as("at"))
      .where("network", "=", network)
      .where("kind", "=", "claim")
      .where("state", "=", "done")
      .executeTakeFirst();
    return row?.at ? Date.parse(String(row.at)) : 0;
  }

  /** Claimed and not yet settled to the pay-to on the network (atomic USDC): what the next settlement moves. */
  async unsettledAtomic(network: string): Promise<bigint> {
    const rows = await this.db
      .selectFrom("batch_operations")
      .select(["kind", "amount"])
      .where("network", "=", network)
      .where("kind", "in", ["claim", "settle"])
      .where("state", "=", "done")
      .execute();
    return rows.reduce((sum, r) => sum + (r.kind === "claim" ? 1n : -1n) * BigInt(r.amount), 0n);
  }

  /** When the network's first batch-settlement sale was made (ms since the epoch), or 0. */
  async firstSaleMs(network: string): Promise<number> {
    const row = await this.db
      .selectFrom("ledger")
      .select((eb) => eb.fn.min("created_at").as("at"))
      .where("network", "=", network)
      .where("batch_channel", "is not", null)
      .executeTakeFirst();
    return row?.at ? Date.parse(String(row.at)) : 0;
  }

  async list(limit = 100) {
    return this.db.selectFrom("batch_operations").selectAll().orderBy("id", "desc").limit(limit).execute();
  }

  async figures(): Promise<BatchFigures> {
    const [channels, ops, sales, unclaimedVouchers, chain] = await Promise.all([
      this.db
        .selectFrom("batch_channels")
        .select(["balance", "total_claimed", "charged_cumulative", "written_off_to"])
        .execute(),
      this.db.selectFrom("batch_operations").select(["kind", "state", "amount", "transaction"]).execute(),
      this.db
        .selectFrom("ledger")
        .select((eb) => [
          eb.fn.countAll<number>().as("calls"),
          eb.fn.count<number>("transaction").as("deposits"),
        ])
        .where("batch_channel", "is not", null)
        .where("state", "=", "settled")
        // A buyer's refund request is answered through a route too; it is counted with the refunds.
        .where("nonce_key", "not like", "%:batch-refund:%")
        .executeTakeFirst(),
      this.unclaimedVoucherCount(),
      this.chainAlarm(),
    ]);
    const done = (kind: BatchOperationKind): DoneFigures => {
      const rows = ops.filter((o) => o.kind === kind && o.state === "done");
      return { count: rows.length, atomic: rows.reduce((sum, o) => sum + BigInt(o.amount || "0"), 0n) };
    };
    const claims = done("claim");
    const settlements = done("settle");
    const refunds = done("refund");
    return {
      openChannels: channels.length,
      heldAtomic: channels.reduce((sum, c) => sum + BigInt(c.balance) - BigInt(c.total_claimed), 0n),
      unclaimedAtomic: channels.reduce(
        (sum, c) => sum + owing(c.charged_cumulative, c.total_claimed, c.written_off_to),
        0n,
      ),
      unclaimedVouchers,
      claims,
      settlements,
      refunds,
      lost: done("lost"),
      unknown: ops.filter((o) => o.state === "unknown").length,
      chain,
      calls: Number(sales?.calls ?? 0),
      // A refund claims in its own transaction: transactions are counted once each.
      transactions:
        Number(sales?.deposits ?? 0) +
        new Set(ops.filter((o) => o.state === "done" && o.transaction).map((o) => o.transaction)).size,
    };
  }

  /** Undecided operations whose last chain check could not reach the chain: an operator must look. */
  async chainAlarm(): Promise<BatchChainAlarm> {
    const rows = await this.db
      .selectFrom("batch_operations")
      .select(["network", "chain_error"])
      .where("state", "=", "unknown")
      .where("chain_error", "is not", null)
      .orderBy("chain_checked_at", "desc")
      .limit(1000)
      .execute();
    return unreachableChecks(rows);
  }

  /** Voucher sales above their channel's claimed total (amounts compared as numbers, not text). */
  private async unclaimedVoucherCount(): Promise<number> {
    const numeric = this.postgres ? sql.raw("numeric") : sql.raw("integer");
    const row = await this.db
      .selectFrom("ledger")
      .innerJoin("batch_channels", (join) =>
        join
          .onRef("batch_channels.channel_id", "=", "ledger.batch_channel")
          .onRef("batch_channels.network", "=", "ledger.network"),
      )
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("ledger.state", "=", "settled")
      .where(
        sql<boolean>`cast(ledger.batch_cumulative as ${numeric}) > cast(batch_channels.total_claimed as ${numeric})`,
      )
      .where(
        sql<boolean>`cast(ledger.batch_cumulative as ${numeric}) > cast(batch_channels.written_off_to as ${numeric})`,
      )
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
