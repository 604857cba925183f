// The embedded job queue: enqueue deduplicated by (queue, key), claim with a lease, retry with backoff.
import type { Selectable } from "kysely";
import { Repository } from "./repository.ts";
import type { JobTable } from "./schema.ts";

export type JobRow = Selectable<JobTable>;

export interface EnqueueOptions {
  runAt?: Date;
  maxAttempts?: number;
}

export interface QueueCounts {
  queued: number;
  running: number;
  done: number;
  dead: number;
}

export class JobRepository extends Repository {
  /**
   * Adds a job unless one with the same key is already queued or running.
   * A finished or dead job with the key is queued again. Returns true when a job was (re)queued.
   */
  async enqueue(
    queue: string,
    key: string,
    payload: unknown,
    options: EnqueueOptions = {},
    now = new Date(),
  ): Promise<boolean> {
    const runAt = (options.runAt ?? now).toISOString();
    const stamp = now.toISOString();
    const result = await this.db
      .insertInto("jobs")
      .values({
        queue,
        key,
        payload: JSON.stringify(payload ?? null),
        state: "queued",
        attempts: 0,
        max_attempts: options.maxAttempts ?? 5,
        run_at: runAt,
        locked_until: null,
        last_error: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .onConflict((oc) =>
        oc
          .columns(["queue", "key"])
          .doUpdateSet({
            state: "queued",
            attempts: 0,
            payload: JSON.stringify(payload ?? null),
            run_at: runAt,
            locked_until: null,
            last_error: null,
            updated_at: stamp,
          })
          .where("jobs.state", "in", ["done", "dead"]),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** Takes the next due job of the given queues (or a running one whose lease ran out). */
  async claim(queues: string[], leaseMs: number, now = new Date()): Promise<JobRow | undefined> {
    if (queues.length === 0) return undefined;
    const stamp = now.toISOString();
    return this.db.transaction().execute(async (trx) => {
      const next = await trx
        .selectFrom("jobs")
        .select("id")
        .where("queue", "in", queues)
        .where((eb) =>
          eb.or([
            eb.and([eb("state", "=", "queued"), eb("run_at", "<=", stamp)]),
            eb.and([eb("state", "=", "running"), eb("locked_until", "<", stamp)]),
          ]),
        )
        .orderBy("run_at")
        .limit(1)
        // Several workers claim at once on PostgreSQL: each skips the rows another is taking.
        .$if(this.postgres, (qb) => qb.forUpdate().skipLocked())
        .executeTakeFirst();
      if (!next) return undefined;
      return trx
        .updateTable("jobs")
        .set((eb) => ({
          state: "running",
          attempts: eb("attempts", "+", 1),
          locked_until: new Date(now.getTime() + leaseMs).toISOString(),
          updated_at: stamp,
        }))
        .where("id", "=", next.id)
        .returningAll()
        .executeTakeFirst();
    });
  }

  /** Hands a claimed job back unfinished (a worker shutting down): due at once, the attempt not counted. */
  async release(id: number, now = new Date()): Promise<void> {
    await this.db
      .updateTable("jobs")
      .set((eb) => ({
        state: "queued",
        attempts: eb("attempts", "-", 1),
        locked_until: null,
        run_at: now.toISOString(),
        updated_at: now.toISOString(),
      }))
      .where("id", "=", id)
      .where("state", "=", "running")
      .execute();
  }

  /**
   * Hands a claimed job back to run at `runAt`, the attempt not counted: its upstream asked for a pause or its
   * request budget is spent, which says nothing about the job itself.
   */
  async postpone(id: number, runAt: Date, reason: string, now = new Date()): Promise<void> {
    await this.db
      .updateTable("jobs")
      .set((eb) => ({
        state: "queued",
        attempts: eb("attempts", "-", 1),
        locked_until: null,
        run_at: runAt.toISOString(),
        last_error: reason.slice(0, 2000),
        updated_at: now.toISOString(),
      }))
      .where("id", "=", id)
      .where("state", "=", "running")
      .execute();
  }

  async complete(id: number, now = new Date()): Promise<void> {
    await this.db
      .updateTable("jobs")
      .set({ state: "done", locked_until: null, last_error: null, updated_at: now.toISOString() })
      .where("id", "=", id)
      .execute();
  }

  /** Records a failure: retried after an exponential backoff, or dead after its last attempt. */
  async fail(job: JobRow, error: string, baseBackoffMs = 5000, now = new Date()): Promise<"retry" | "dead"> {
    const dead = job.attempts >= job.max_attempts;
    const delay = Math.min(baseBackoffMs * 2 ** (job.attempts - 1), 6 * 3600_000);
    await this.db
      .updateTable("jobs")
      .set({
        state: dead ? "dead" : "queued",
        locked_until: null,
        run_at: new Date(now.getTime() + delay).toISOString(),
        last_error: error.slice(0, 2000),
        updated_at: now.toISOString(),
      })
      .where("id", "=", job.id)
      .execute();
    return dead ? "dead" : "retry";
  }

  /** Deletes finished jobs last touched before `before` (dead letters stay for the status endpoints). */
  async purgeDone(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom("jobs")
      .where("state", "=", "done")
      .where("updated_at", "<", before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async get(queue: string, key: string): Promise<JobRow | undefined> {
    return this.db
      .selectFrom("jobs")
      .selectAll()
      .where("queue", "=", queue)
      .where("key", "=", key)
      .executeTakeFirst();
  }

  async counts(queue: string): Promise<QueueCounts> {
    const rows = await this.db
      .selectFrom("jobs")
      .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
      .where("queue", "=", queue)
      .groupBy("state")
      .execute();
    const counts: QueueCounts = { queued: 0, running: 0, done: 0, dead: 0 };
    for (const row of rows) counts[row.state] = Number(row.n);
    return counts;
  }

  async dead(queue: string, limit = 20): Promise<JobRow[]> {
    return this.db
      .selectFrom("jobs")
      .selectAll()
      .where("queue", "=", queue)
      .where("state", "=", "dead")
      .orderBy("updated_at", "desc")
      .limit(limit)
      .execute();
  }
}
