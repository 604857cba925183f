import { Repository } from "./repository.ts";

export class NonceClaimRepository extends Repository {
  /** True when this call took the claim; false when the payment was already claimed. */
  async claim(nonceKey: string, sku: string, now = new Date()): Promise<boolean> {
    const result = await this.db
      .insertInto("nonce_claims")
      .values({ nonce_key: nonceKey, sku, claimed_at: now.toISOString() })
      .onConflict((oc) => oc.column("nonce_key").doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /**
   * Deletes claims older than `before`. By then a settled payment's nonce is spent on chain, where the
   * facilitator refuses it again, and an unsettled one's authorization has long expired.
   */
  async purgeBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom("nonce_claims")
      .where("claimed_at", "<", before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async release(nonceKey: string): Promise<void> {
    await this.db.deleteFrom("nonce_claims").where("nonce_key", "=", nonceKey).execute();
  }
}
