// Request spacing per upstream shared by every process on the store: each request books the next start.
import { sql } from "kysely";
import { Repository } from "./repository.ts";

export class UpstreamBudgetRepository extends Repository {
  /**
   * Books a start for one request to `upstream`, at least `intervalMs` after the previous booking from
   * any process, and returns it (epoch ms). One atomic upsert, so concurrent bookings never share a start.
   */
  async reserve(upstream: string, intervalMs: number, nowMs = Date.now()): Promise<number> {
    const greatest = this.postgres ? sql.raw("greatest") : sql.raw("max");
    const row = await this.db
      .insertInto("upstream_budgets")
      .values({ upstream, next_start_ms: nowMs + intervalMs })
      .onConflict((oc) =>
        oc.column("upstream").doUpdateSet({
          next_start_ms: sql<number>`${greatest}(upstream_budgets.next_start_ms, ${nowMs}) + ${intervalMs}`,
        }),
      )
      .returning("next_start_ms")
      .executeTakeFirstOrThrow();
    return Number(row.next_start_ms) - intervalMs;
  }
}
