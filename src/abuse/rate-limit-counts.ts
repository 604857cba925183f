// Unpaid requests per bucket (a client and a limit) and minute, shared by every node: each adds what it
// counted since its last sync and gets the cluster's total back in the same statement.
import type { Kysely } from "kysely";
import type { Store } from "../store/store.ts";

interface RateLimitTable {
  bucket: string;
  /** Epoch ms of the window's start. */
  window_start: number;
  count: number;
}

interface RateLimitTables {
  rate_limits: RateLimitTable;
}

/** Rows per statement: three parameters each, well under SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 500;

export class RateLimitCounts {
  private readonly db: Kysely<RateLimitTables>;

  constructor(store: Store) {
    this.db = store.db as unknown as Kysely<RateLimitTables>;
  }

  /**
   * Adds `added` (bucket → requests) to the window and returns every such bucket's cluster total.
   * Rows go in bucket order, so two nodes adding to the same buckets lock them in the same order.
   */
  async add(windowStart: number, added: Map<string, number>): Promise<Map<string, number>> {
    const rows = [...added]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([bucket, count]) => ({ bucket, window_start: windowStart, count }));
    const totals = new Map<string, number>();
    for (let i = 0; i < rows.length; i += CHUNK) {
      const returned = await this.db
        .insertInto("rate_limits")
        .values(rows.slice(i, i + CHUNK))
        .onConflict((oc) =>
          oc
            .columns(["bucket", "window_start"])
            .doUpdateSet((eb) => ({ count: eb("rate_limits.count", "+", eb.ref("excluded.count")) })),
        )
        .returning(["bucket", "count"])
        .execute();
      for (const row of returned) totals.set(row.bucket, Number(row.count));
    }
    return totals;
  }

  /** The cluster's totals of `buckets` in one window (buckets nobody counted are left out). */
  async totals(windowStart: number, buckets: string[]): Promise<Map<string, number>> {
    const totals = new Map<string, number>();
    for (let i = 0; i < buckets.length; i += CHUNK) {
      const rows = await this.db
        .selectFrom("rate_limits")
        .select(["bucket", "count"])
        .where("window_start", "=", windowStart)
        .where("bucket", "in", buckets.slice(i, i + CHUNK))
        .execute();
      for (const row of rows) totals.set(row.bucket, Number(row.count));
    }
    return totals;
  }

  /** How many distinct buckets starting with `prefix` were counted in windows from `since` on. */
  async distinct(prefix: string, since: number): Promise<number> {
    const row = await this.db
      .selectFrom("rate_limits")
      .select((eb) => eb.fn.count<number>("bucket").distinct().as("n"))
      .where("window_start", ">=", since)
      .where("bucket", "like", `${prefix}%`)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Deletes the windows that started before `before` (epoch ms). */
  async prune(before: number): Promise<void> {
    await this.db.deleteFrom("rate_limits").where("window_start", "<", before).execute();
  }
}
