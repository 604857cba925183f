// Upstream budgets shared by every process on the store: request spacing (each request books the next
// start), sliding-window limits counted on a log of booked starts, and pauses an upstream imposed.
import { sql } from "kysely";
import {
  type BookingRequest,
  type BookingResult,
  type BudgetBook,
  type BudgetState,
  decideBooking,
} from "../budgets/booking.ts";
import { LONGEST_WINDOW_MS, type WindowLimits, windowUse } from "../budgets/windows.ts";
import { Repository } from "./repository.ts";
import { UpstreamSlotRepository } from "./upstream-slots.ts";

export class UpstreamBudgetRepository extends Repository implements BudgetBook {
  /** Each upstream's concurrency, cluster-wide. */
  readonly slots = new UpstreamSlotRepository(this.db);

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

  /**
   * Books a start honouring spacing, pause and window limits, or says when the budget frees when that is
   * more than `maxWaitMs` away (nothing is booked then). Bookings of one budget queue on its row's lock.
   */
  async book(request: BookingRequest, nowMs = Date.now()): Promise<BookingResult> {
    const { budget } = request;
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("upstream_budgets")
        .values({ upstream: budget, next_start_ms: 0 })
        .onConflict((oc) => oc.column("upstream").doNothing())
        .execute();
      // A no-op update takes the write lock (the row's on PostgreSQL, the database's on SQLite) before reading.
      const row = await trx
        .updateTable("upstream_budgets")
        .set({ next_start_ms: sql<number>`next_start_ms` })
        .where("upstream", "=", budget)
        .returning(["next_start_ms", "paused_until_ms", "pause_reason"])
        .executeTakeFirstOrThrow();
      const booked = request.limits
        ? (
            await trx
              .selectFrom("upstream_requests")
              .select("start_ms")
              .where("budget", "=", budget)
              .where("start_ms", ">", nowMs - LONGEST_WINDOW_MS)
              .execute()
          ).map((r) => Number(r.start_ms))
        : [];
      const result = decideBooking(request, nowMs, {
        nextStartMs: Number(row.next_start_ms),
        pausedUntilMs: row.paused_until_ms === null ? null : Number(row.paused_until_ms),
        pauseReason: row.pause_reason,
        booked,
      });
      if (!result.booked) return result;
      await trx
        .updateTable("upstream_budgets")
        .set({ next_start_ms: result.startAt + request.intervalMs })
        .where("upstream", "=", budget)
        .execute();
      if (request.limits) {
        await trx
          .insertInto("upstream_requests")
          .values({ budget, start_ms: result.startAt, background: request.background ? 1 : 0 })
          .execute();
        await trx
          .deleteFrom("upstream_requests")
          .where("budget", "=", budget)
          .where("start_ms", "<=", nowMs - LONGEST_WINDOW_MS)
          .execute();
      }
      return result;
    });
  }

  async pause(budget: string, untilMs: number, reason: string): Promise<void> {
    const longer = sql<boolean>`upstream_budgets.paused_until_ms is null or upstream_budgets.paused_until_ms < ${untilMs}`;
    await this.db
      .insertInto("upstream_budgets")
      .values({ upstream: budget, next_start_ms: 0, paused_until_ms: untilMs, pause_reason: reason })
      .onConflict((oc) =>
        oc.column("upstream").doUpdateSet({
          paused_until_ms: sql<number>`case when ${longer} then ${untilMs} else upstream_budgets.paused_until_ms end`,
          pause_reason: sql<string>`case when ${longer} then ${reason} else upstream_budgets.pause_reason end`,
        }),
      )
      .execute();
  }

  async state(budget: string, limits: WindowLimits | undefined, nowMs = Date.now()): Promise<BudgetState> {
    const row = await this.db
      .selectFrom("upstream_budgets")
      .select(["paused_until_ms", "pause_reason"])
      .where("upstream", "=", budget)
      .executeTakeFirst();
    const booked = limits
      ? (
          await this.db
            .selectFrom("upstream_requests")
            .select("start_ms")
            .where("budget", "=", budget)
            .where("start_ms", ">", nowMs - LONGEST_WINDOW_MS)
            .execute()
        ).map((r) => Number(r.start_ms))
      : [];
    const until = row?.paused_until_ms == null ? null : Number(row.paused_until_ms);
    const paused = until !== null && until > nowMs;
    return {
      pausedUntilMs: paused ? until : null,
      pauseReason: paused ? (row?.pause_reason ?? null) : null,
      windows: windowUse(booked, limits ?? {}, nowMs),
    };
  }
}
