// The ledger: one row per settlement attempt that reached the facilitator.
import type { Selectable } from "kysely";
import { Repository } from "./repository.ts";
import type { LedgerState, LedgerTable } from "./schema.ts";

export interface LedgerEntry {
  sku: string;
  requestHash: string;
  network: string;
  payer: string | null;
  amount: string;
  asset: string;
  payTo: string;
  transaction: string | null;
  responseSha256: string;
  state: LedgerState;
  errorReason?: string | null;
  /** Kept only while the outcome is unknown, so the settlement can be reconciled. */
  paymentPayload?: unknown;
  requirements?: unknown;
  /** The payment's identity, to find the row when the buyer presents the same payment again. */
  nonceKey?: string;
}

export interface ResolveOptions {
  payer?: string | null;
  now?: Date;
  /** The answer was handed to the buyer (drops any held answer). */
  delivered?: boolean;
  /** The answer to hold for the buyer's retry while the outcome is uncertain. */
  heldResponse?: string;
}

/** A settled payment whose answer never reached the buyer. */
export interface RefundDue {
  id: number;
  createdAt: string;
  sku: string;
  network: string;
  payer: string | null;
  amount: string;
  asset: string;
  transaction: string | null;
  /** When the settlement was confirmed (the row's creation when it never needed confirming). */
  settledAt: string;
}

export interface ChainAlarm {
  /** Uncertain rows whose last on-chain check could not reach the RPC. */
  unreachable: number;
  networks: string[];
  lastError: string | null;
  since: string | null;
}

const DAY_MS = 24 * 3600_000;

/** A settled row written before this and still undelivered is owed a refund. */
export function refundDueBefore(now: Date): string {
  return new Date(now.getTime() - DAY_MS).toISOString();
}

export type LedgerRow = Selectable<LedgerTable>;

export class LedgerRepository extends Repository {
  async record(entry: LedgerEntry, now = new Date()): Promise<number> {
    const row = await this.db
      .insertInto("ledger")
      .values({
        created_at: now.toISOString(),
        sku: entry.sku,
        request_hash: entry.requestHash,
        network: entry.network,
        payer: entry.payer,
        amount: entry.amount,
        asset: entry.asset,
        pay_to: entry.payTo,
        transaction: entry.transaction,
        response_sha256: entry.responseSha256,
        state: entry.state,
        error_reason: entry.errorReason ?? null,
        payment_payload: entry.paymentPayload === undefined ? null : JSON.stringify(entry.paymentPayload),
        requirements: entry.requirements === undefined ? null : JSON.stringify(entry.requirements),
        reconciled_at: null,
        nonce_key: entry.nonceKey ?? null,
        delivered: entry.state === "settled" ? 1 : 0,
        held_response: null,
        chain_checked_at: null,
        chain_error: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /**
   * Sets the outcome of a row. The signed payload is kept while the outcome is unknown (it is what a
   * reconciliation re-submits) and dropped once it is known.
   */
  async resolve(
    id: number,
    state: LedgerState,
    transaction: string | null,
    errorReason: string | null,
    options: ResolveOptions = {},
  ) {
    await this.db
      .updateTable("ledger")
      .set({
        state,
        transaction,
        error_reason: errorReason,
        reconciled_at: (options.now ?? new Date()).toISOString(),
        ...(state === "unknown" ? {} : { payment_payload: null }),
        ...(state === "failed" ? { held_response: null } : {}),
        ...(options.payer ? { payer: options.payer } : {}),
        ...(options.heldResponse !== undefined ? { held_response: options.heldResponse } : {}),
        ...(options.delivered ? { delivered: 1, held_response: null } : {}),
      })
      .where("id", "=", id)
      .execute();
  }

  /** The latest row of a payment, by its identity (payment-identity.ts). */
  async findByNonceKey(nonceKey: string): Promise<LedgerRow | undefined> {
    return this.db
      .selectFrom("ledger")
      .selectAll()
      .where("nonce_key", "=", nonceKey)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
  }

  async markDelivered(id: number): Promise<void> {
    await this.db
      .updateTable("ledger")
      .set({ delivered: 1, held_response: null })
      .where("id", "=", id)
      .execute();
  }

  /** Records an on-chain check: `error` when the RPC could not be asked (the alarm), null when it answered. */
  async recordChainCheck(id: number, error: string | null, now = new Date()): Promise<void> {
    await this.db
      .updateTable("ledger")
      .set({ chain_checked_at: now.toISOString(), chain_error: error })
      .where("id", "=", id)
      .execute();
  }

  /**
   * Settled payments whose answer was not delivered within a day and that no recorded refund (refunds.ts)
   * covers yet: the buyer is owed a refund.
   */
  async refundsDue(now = new Date(), limit = 1000): Promise<RefundDue[]> {
    const rows = await this.db
      .selectFrom("ledger")
      .select([
        "id",
        "created_at",
        "sku",
        "network",
        "payer",
        "amount",
        "asset",
        "transaction",
        "reconciled_at",
      ])
      .where("state", "=", "settled")
      .where("delivered", "=", 0)
      .where("created_at", "<", refundDueBefore(now))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("ledger_refunds")
              .select("ledger_id")
              .whereRef("ledger_refunds.ledger_id", "=", "ledger.id"),
          ),
        ),
      )
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      createdAt: r.created_at,
      sku: r.sku,
      network: r.network,
      payer: r.payer,
      amount: r.amount,
      asset: r.asset,
      transaction: r.transaction,
      settledAt: r.reconciled_at ?? r.created_at,
    }));
  }

  /** Uncertain settlements the chain could not be asked about: an operator must look (never a guess). */
  async chainAlarm(): Promise<ChainAlarm> {
    const rows = await this.db
      .selectFrom("ledger")
      .select(["network", "chain_error", "chain_checked_at", "created_at"])
      .where("state", "in", ["unknown", "pending"])
      .where("chain_error", "is not", null)
      .orderBy("chain_checked_at", "desc")
      .limit(1000)
      .execute();
    return {
      unreachable: rows.length,
      networks: [...new Set(rows.map((r) => r.network))].sort(),
      lastError: rows[0]?.chain_error ?? null,
      since: rows.reduce<string | null>(
        (min, r) => (min === null || r.created_at < min ? r.created_at : min),
        null,
      ),
    };
  }

  /** Ids of rows still in `state` that were written before `before` (left behind by a stopped process). */
  async idsInStateBefore(state: LedgerState, before: Date, limit = 100): Promise<number[]> {
    const rows = await this.db
      .selectFrom("ledger")
      .select("id")
      .where("state", "=", state)
      .where("created_at", "<", before.toISOString())
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((r) => Number(r.id));
  }

  async get(id: number): Promise<LedgerRow | undefined> {
    return this.db.selectFrom("ledger").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async list(options: { state?: LedgerState; limit?: number } = {}): Promise<LedgerRow[]> {
    let query = this.db
      .selectFrom("ledger")
      .selectAll()
      .orderBy("id", "desc")
      .limit(options.limit ?? 100);
    if (options.state) query = query.where("state", "=", options.state);
    return query.execute();
  }

  async totals(): Promise<Array<{ state: string; count: number; atomic: string }>> {
    const rows = await this.db.selectFrom("ledger").select(["state", "amount"]).execute();
    const totals = new Map<string, { count: number; atomic: bigint }>();
    for (const row of rows) {
      const t = totals.get(row.state) ?? { count: 0, atomic: 0n };
      t.count += 1;
      t.atomic += BigInt(row.amount);
      totals.set(row.state, t);
    }
    return [...totals].map(([state, t]) => ({ state, count: t.count, atomic: t.atomic.toString() }));
  }
}
