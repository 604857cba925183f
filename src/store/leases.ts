// Named leases: one holder at a time across every process sharing the store (a collector's leadership).
import { Repository } from "./repository.ts";

export class LeaseRepository extends Repository {
  /**
   * Takes or renews the lease for `ttlMs`. True when `holder` holds it now: it was free, expired, or
   * already `holder`'s.
   */
  async acquire(name: string, holder: string, ttlMs: number, now = new Date()): Promise<boolean> {
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    const result = await this.db
      .insertInto("leases")
      .values({ name, holder, expires_at: expiresAt })
      .onConflict((oc) =>
        oc
          .column("name")
          .doUpdateSet({ holder, expires_at: expiresAt })
          .where((eb) =>
            eb.or([eb("leases.holder", "=", holder), eb("leases.expires_at", "<", now.toISOString())]),
          ),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.db.deleteFrom("leases").where("name", "=", name).where("holder", "=", holder).execute();
  }

  async holder(name: string, now = new Date()): Promise<string | undefined> {
    const row = await this.db
      .selectFrom("leases")
      .select("holder")
      .where("name", "=", name)
      .where("expires_at", ">=", now.toISOString())
      .executeTakeFirst();
    return row?.holder;
  }

  /** The holders of the leases named `prefix…` that have not expired. */
  async liveHolders(prefix: string, now = new Date()): Promise<string[]> {
    const rows = await this.db
      .selectFrom("leases")
      .select("holder")
      .where("name", "like", `${prefix}%`)
      .where("expires_at", ">=", now.toISOString())
      .execute();
    return rows.map((r) => r.holder);
  }
}
