import { Repository } from "./repository.ts";

export class SampleCounterRepository extends Repository {
  /** Counts one use in the bucket and returns the count including it. */
  async increment(bucket: string, expiresAt: Date): Promise<number> {
    const row = await this.db
      .insertInto("sample_counters")
      .values({ bucket, count: 1, expires_at: expiresAt.toISOString() })
      .onConflict((oc) =>
        oc.column("bucket").doUpdateSet((eb) => ({ count: eb("sample_counters.count", "+", 1) })),
      )
      .returning("count")
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async purgeExpired(now = new Date()): Promise<void> {
    await this.db.deleteFrom("sample_counters").where("expires_at", "<", now.toISOString()).execute();
  }
}
