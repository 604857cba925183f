// Paid answers kept for retries with the same payment identifier. A row is reserved (pending) once the
// payment is verified, holds the sealed answer once it is settled, and is purged after expires_at.
import type { Kysely } from "kysely";
import { Repository } from "./repository.ts";

interface PaidAnswerTable {
  /** The buyer's payment identifier (extensions["payment-identifier"].info.id). */
  payment_id: string;
  /** The paying wallet, lower-case. */
  payer: string;
  /** The request the answer is for (method, path, parameters, body). */
  request_hash: string;
  /** The payment that paid for it (payment-identity.ts). */
  nonce_key: string;
  state: "pending" | "stored";
  /** AES-256-GCM sealed answer (body and PAYMENT-RESPONSE), base64; null while pending. */
  sealed_answer: string | null;
  created_at: string;
  expires_at: string;
}

export type PaidAnswerRow = PaidAnswerTable;

interface Tables {
  paid_answers: PaidAnswerTable;
}

export class PaidAnswerRepository extends Repository {
  private get answers(): Kysely<Tables> {
    return this.db as unknown as Kysely<Tables>;
  }

  /**
   * Takes the payment identifier for this payer and request; false when a live row already holds it (another
   * request with it is running, or done). An expired row is replaced.
   */
  async reserve(
    row: { paymentId: string; payer: string; requestHash: string; nonceKey: string },
    retentionMs: number,
    now = new Date(),
  ): Promise<boolean> {
    const payer = row.payer.toLowerCase();
    const insert = async () => {
      const result = await this.answers
        .insertInto("paid_answers")
        .values({
          payment_id: row.paymentId,
          payer,
          request_hash: row.requestHash,
          nonce_key: row.nonceKey,
          state: "pending",
          sealed_answer: null,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + retentionMs).toISOString(),
        })
        .onConflict((oc) => oc.columns(["payment_id", "payer"]).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    };
    if (await insert()) return true;
    const expired = await this.answers
      .deleteFrom("paid_answers")
      .where("payment_id", "=", row.paymentId)
      .where("payer", "=", payer)
      .where("expires_at", "<=", now.toISOString())
      .executeTakeFirst();
    return Number(expired.numDeletedRows) > 0 && (await insert());
  }

  /** The live row of a payment identifier and payer. */
  find(paymentId: string, payer: string, now = new Date()): Promise<PaidAnswerRow | undefined> {
    return this.answers
      .selectFrom("paid_answers")
      .selectAll()
      .where("payment_id", "=", paymentId)
      .where("payer", "=", payer.toLowerCase())
      .where("expires_at", ">", now.toISOString())
      .executeTakeFirst();
  }

  /** The live row of a payment identifier taken by this very payment (the same signed payload again). */
  findByPayment(paymentId: string, nonceKey: string, now = new Date()): Promise<PaidAnswerRow | undefined> {
    return this.answers
      .selectFrom("paid_answers")
      .selectAll()
      .where("payment_id", "=", paymentId)
      .where("nonce_key", "=", nonceKey)
      .where("expires_at", ">", now.toISOString())
      .executeTakeFirst();
  }

  /** Keeps the sealed answer of a settled payment; its retention counts from now. */
  async keep(
    key: { paymentId: string; payer: string },
    sealedAnswer: string,
    retentionMs: number,
    now = new Date(),
  ): Promise<void> {
    await this.answers
      .updateTable("paid_answers")
      .set({
        state: "stored",
        sealed_answer: sealedAnswer,
        expires_at: new Date(now.getTime() + retentionMs).toISOString(),
      })
      .where("payment_id", "=", key.paymentId)
      .where("payer", "=", key.payer.toLowerCase())
      .execute();
  }

  /** Frees a reservation whose payment was not settled (refused, failed, or the answer was not a 2xx). */
  async release(key: { paymentId: string; payer: string }): Promise<void> {
    await this.answers
      .deleteFrom("paid_answers")
      .where("payment_id", "=", key.paymentId)
      .where("payer", "=", key.payer.toLowerCase())
      .where("state", "=", "pending")
      .execute();
  }

  async purgeExpired(now = new Date()): Promise<number> {
    const result = await this.answers
      .deleteFrom("paid_answers")
      .where("expires_at", "<=", now.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
