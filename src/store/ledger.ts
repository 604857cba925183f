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
    options: { payer?: string | null; now?: Date } = {},
  ) {
    await this.db
      .updateTable("ledger")
      .set({
        state,
        transaction,
        error_reason: errorReason,
        reconciled_at: (options.now ?? new Date()).toISOString(),
        ...(state === "unknown" ? {} : { payment_payload: null }),
        ...(options.payer ? { payer: options.payer } : {}),
      })
      .where("id", "=", id)
      .execute();
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
