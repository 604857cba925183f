import { Prepared, type QueryRunner } from "./prepared.ts";
import { Repository } from "./repository.ts";

export class NonceClaimRepository extends Repository {
  private readonly insert = new Prepared((v: { nonce_key: string; sku: string; claimed_at: string }) =>
    this.db
      .insertInto("nonce_claims")
      .values({ nonce_key: v.nonce_key, sku: v.sku, claimed_at: v.claimed_at })
      .onConflict((oc) => oc.column("nonce_key").doNothing()),
  );

  /** True when this call took the claim; false when the payment was already claimed. */
  async claim(
    nonceKey: string,
    sku: string,
    now = new Date(),
    runner: QueryRunner = this.db,
  ): Promise<boolean> {
    const result = await runner.executeQuery(this.claimStatement(nonceKey, sku, now));
    return Number(result.numAffectedRows ?? 0n) === 1;
  }

  /** The claim as a statement: it changes one row when it takes the claim, none when already claimed. */
  claimStatement(nonceKey: string, sku: string, now: Date) {
    return this.insert.with({ nonce_key: nonceKey, sku, claimed_at: now.toISOString() });
  }

  /**
   * Deletes claims older than `before`. By then a settled payment's nonce is spent on chain, where the
   * facilitator refuses it again, and an unsettled one's authorization has long expired. Claims of payments
   * still uncertain, or settled with the answer not delivered, are kept: the buyer's retry with that payment
   * must find its ledger row (and get the answer), not start over.
   */
  async purgeBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom("nonce_claims")
      .where("claimed_at", "<", before.toISOString())
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("ledger")
              .select("ledger.id")
              .whereRef("ledger.nonce_key", "=", "nonce_claims.nonce_key")
              .where((eb) =>
                eb.or([
                  eb("ledger.state", "in", ["pending", "unknown"]),
                  eb.and([eb("ledger.state", "=", "settled"), eb("ledger.delivered", "=", 0)]),
                ]),
              ),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async release(nonceKey: string): Promise<void> {
    await this.db.deleteFrom("nonce_claims").where("nonce_key", "=", nonceKey).execute();
  }
}
