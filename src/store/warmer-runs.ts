import { Repository } from "./repository.ts";

interface WarmerStatus {
  warmer: string;
  lastRunAt: string | null;
  lastFinishedAt: string | null;
  lastOk: boolean | null;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  counts: Record<string, unknown> | null;
  runs: number;
}

export class WarmerRunRepository extends Repository {
  async start(warmer: string, now = new Date()): Promise<number> {
    const row = await this.db
      .insertInto("warmer_runs")
      .values({
        warmer,
        started_at: now.toISOString(),
        finished_at: null,
        ok: null,
        error: null,
        counts: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async finish(
    id: number,
    outcome: { ok: true; counts: Record<string, unknown> } | { ok: false; error: string },
    now = new Date(),
  ) {
    await this.db
      .updateTable("warmer_runs")
      .set({
        finished_at: now.toISOString(),
        ok: outcome.ok ? 1 : 0,
        error: outcome.ok ? null : outcome.error.slice(0, 2000),
        counts: outcome.ok ? JSON.stringify(outcome.counts) : null,
      })
      .where("id", "=", id)
      .execute();
  }

  async status(warmer: string): Promise<WarmerStatus> {
    const base = this.db.selectFrom("warmer_runs").selectAll().where("warmer", "=", warmer);
    const [last, lastSuccess, lastFailure, total] = await Promise.all([
      base.orderBy("id", "desc").limit(1).executeTakeFirst(),
      base.where("ok", "=", 1).orderBy("id", "desc").limit(1).executeTakeFirst(),
      base.where("ok", "=", 0).orderBy("id", "desc").limit(1).executeTakeFirst(),
      this.db
        .selectFrom("warmer_runs")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("warmer", "=", warmer)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      warmer,
      lastRunAt: last?.started_at ?? null,
      lastFinishedAt: last?.finished_at ?? null,
      lastOk: last?.ok == null ? null : last.ok === 1,
      lastSuccessAt: lastSuccess?.finished_at ?? null,
      lastError: lastFailure?.error ?? null,
      lastErrorAt: lastFailure?.finished_at ?? null,
      counts: lastSuccess?.counts ? (JSON.parse(lastSuccess.counts) as Record<string, unknown>) : null,
      runs: Number(total.n),
    };
  }
}
