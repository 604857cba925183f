// Refunds the operator made by hand for settled payments whose answer never reached the buyer. paycall moves
// no money: these rows only remember that a refund was sent, so the row leaves the refunds-due list.
import { refundDueBefore } from "./ledger.ts";
import { Repository } from "./repository.ts";

interface RecordedRefund {
  ledgerId: number;
  transaction: string;
  /** Atomic USDC units refunded (the whole payment). */
  amount: string;
  note: string | null;
  recordedAt: string;
}

type RecordRefundResult =
  | { outcome: "recorded"; refund: RecordedRefund }
  | { outcome: "no_such_row" }
  | { outcome: "not_due"; reason: string }
  | { outcome: "already_refunded"; refund: RecordedRefund };

function fromRow(row: {
  ledger_id: number;
  transaction: string;
  amount: string;
  note: string | null;
  recorded_at: string;
}): RecordedRefund {
  return {
    ledgerId: Number(row.ledger_id),
    transaction: row.transaction,
    amount: row.amount,
    note: row.note,
    recordedAt: row.recorded_at,
  };
}

export class RefundRepository extends Repository {
  /** Records the refund of ledger row `ledgerId`, which must be owed one (see LedgerRepository.refundsDue). */
  async record(
    ledgerId: number,
    refund: { transaction: string; note?: string | null },
    now = new Date(),
  ): Promise<RecordRefundResult> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("ledger")
        .select(["id", "state", "delivered", "created_at", "amount"])
        .where("id", "=", ledgerId)
        .executeTakeFirst();
      if (!row) return { outcome: "no_such_row" };
      const existing = await trx
        .selectFrom("ledger_refunds")
        .selectAll()
        .where("ledger_id", "=", ledgerId)
        .executeTakeFirst();
      if (existing) return { outcome: "already_refunded", refund: fromRow(existing) };
      if (row.state !== "settled")
        return { outcome: "not_due", reason: `the payment is ${row.state}, not settled` };
      if (Number(row.delivered) === 1)
        return { outcome: "not_due", reason: "the answer was delivered to the buyer" };
      if (row.created_at >= refundDueBefore(now)) {
        return {
          outcome: "not_due",
          reason: "the payment is less than a day old; the buyer may still collect the answer",
        };
      }
      const values = {
        ledger_id: ledgerId,
        transaction: refund.transaction,
        amount: row.amount,
        note: refund.note ?? null,
        recorded_at: now.toISOString(),
      };
      // Two operators at once: the primary key lets one in; the other learns it was already recorded.
      const inserted = await trx
        .insertInto("ledger_refunds")
        .values(values)
        .onConflict((oc) => oc.column("ledger_id").doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
        const winner = await trx
          .selectFrom("ledger_refunds")
          .selectAll()
          .where("ledger_id", "=", ledgerId)
          .executeTakeFirstOrThrow();
        return { outcome: "already_refunded", refund: fromRow(winner) };
      }
      return { outcome: "recorded", refund: fromRow(values) };
    });
  }

  async get(ledgerId: number): Promise<RecordedRefund | undefined> {
    const row = await this.db
      .selectFrom("ledger_refunds")
      .selectAll()
      .where("ledger_id", "=", ledgerId)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  /** Refunds recorded from `from` (inclusive) to `to` (exclusive), ISO timestamps, oldest first. */
  async recordedBetween(from: string, to: string, limit = 1000): Promise<RecordedRefund[]> {
    const rows = await this.db
      .selectFrom("ledger_refunds")
      .selectAll()
      .where("recorded_at", ">=", from)
      .where("recorded_at", "<", to)
      .orderBy("recorded_at")
      .limit(limit)
      .execute();
    return rows.map(fromRow);
  }
}
