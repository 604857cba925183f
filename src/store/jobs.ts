// The embedded job queue: enqueue deduplicated by (queue, key) into a lane, claim with a lease kept alive by
// heartbeats, retry with backoff, dead letters after the last attempt.
import { randomUUID } from "node:crypto";
import type { Selectable, UpdateQueryBuilder, UpdateResult } from "kysely";
import { Repository } from "./repository.ts";
import type { Database, JobTable } from "./schema.ts";

export type JobRow = Selectable<JobTable>;

/** Lanes in the order they are served first: a job enqueued into an earlier lane moves a queued one up. */
/**
 * Where a job waits for a worker slot; each lane has its own slots, so a long import never holds up a buyer's
 * fetch: "fetch" (an item a buyer asked for), "warm" (warmers and what they queue), "bulk" (imports of whole
 * datasets).
 */
export type JobLane = "fetch" | "warm" | "bulk";

export const JOB_LANES: readonly JobLane[] = ["fetch", "warm", "bulk"];

interface EnqueueOptions {
  runAt?: Date;
  maxAttempts?: number;
  /** Default: the lane the queue's declaration gives (`fileLanes`). */
  lane?: JobLane;
}

/** What a lane holds now: jobs due and waiting for a slot, jobs running, and how long the oldest due one waited. */
export interface LaneFigures {
  lane: JobLane;
  due: number;
  running: number;
  oldestDueAgeSec: number | null;
}

/** A claimed job as its claim knows it: finishing it needs the claim's lease id, or the bare id (tools, tests). */
type Claimed = number | Pick<JobRow, "id" | "lease_id">;
type JobUpdate = UpdateQueryBuilder<Database, "jobs", "jobs", UpdateResult>;

/** Without declarations (tools, tests): warmer jobs are warmed, every other queue fetches. */
export function defaultLane(queue: string): JobLane {
  return queue === "warmer" ? "warm" : "fetch";
}

interface QueueCounts {
  queued: number;
  running: number;
  done: number;
  dead: number;
}

export class JobRepository extends Repository {
  private laneOf: (queue: string, key: string) => JobLane = defaultLane;

  /** Files each enqueued job in the lane its queue (or warmer) declares; the worker sets it from the families. */
  fileLanes(laneOf: (queue: string, key: string) => JobLane): void {
    this.laneOf = laneOf;
  }

  /**
   * Adds a job unless one with the same key is already queued or running.
   * A finished or dead job with the key is queued again. Returns true when a job was (re)queued.
   * A job still queued in a later lane moves up to this one (a buyer asks for what a warmer queued).
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
    const lane = options.lane ?? this.laneOf(queue, key);
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
        lane,
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
            lane,
          })
          .where("jobs.state", "in", ["done", "dead"]),
      )
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) return true;
    const later = JOB_LANES.slice(JOB_LANES.indexOf(lane) + 1);
    if (later.length > 0) {
      await this.db
        .updateTable("jobs")
        .set({ lane, updated_at: stamp })
        .where("queue", "=", queue)
        .where("key", "=", key)
        .where("state", "=", "queued")
        .where("lane", "in", later)
        .execute();
    }
    return false;
  }

  /**
   * Takes the next due job of the given queues (or a running one whose lease ran out, its worker gone), of the
   * given lanes only when `lanes` is set. The claim gets a lease id of its own.
   */
  async claim(
    queues: string[],
    leaseMs: number,
    now = new Date(),
    lanes?: readonly JobLane[],
  ): Promise<JobRow | undefined> {
    if (queues.length === 0 || lanes?.length === 0) return undefined;
    const stamp = now.toISOString();
    return this.db.transaction().execute(async (trx) => {
      const next = await trx
        .selectFrom("jobs")
        .select("id")
        .where("queue", "in", queues)
        .$if(lanes !== undefined, (qb) => qb.where("lane", "in", lanes as JobLane[]))
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
          lease_id: randomUUID(),
          updated_at: stamp,
        }))
        .where("id", "=", next.id)
        .returningAll()
        .executeTakeFirst();
    });
  }

  /**
   * Extends the lease of a running job. False when the claim is no longer this one (its lease ran out and
   * another worker took the job): the caller stops working on it.
   */
  async heartbeat(job: Pick<JobRow, "id" | "lease_id">, leaseMs: number, now = new Date()): Promise<boolean> {
    const result = await this.owned(
      this.db.updateTable("jobs").set({
        locked_until: new Date(now.getTime() + leaseMs).toISOString(),
        updated_at: now.toISOString(),
      }),
      job,
    ).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Restricts an update to the job while the given claim holds it (a bare id: while it exists). */
  private owned(qb: JobUpdate, job: Claimed): JobUpdate {
    if (typeof job === "number") return qb.where("id", "=", job);
    const running = qb.where("id", "=", job.id).where("state", "=", "running");
    return job.lease_id === null ? running : running.where("lease_id", "=", job.lease_id);
  }

  /** Hands a claimed job back unfinished (a worker shutting down): due at once, the attempt not counted. */
  async release(job: Claimed, now = new Date()): Promise<void> {
    await this.owned(this.db.updateTable("jobs"), job)
      .set((eb) => ({
        state: "queued",
        attempts: eb("attempts", "-", 1),
        locked_until: null,
        run_at: now.toISOString(),
        updated_at: now.toISOString(),
      }))
      .where("state", "=", "running")
      .execute();
  }

  /**
   * Hands a claimed job back to run at `runAt`, the attempt not counted: its upstream asked for a pause or its
   * request budget is spent, which says nothing about the job itself.
   */
  async postpone(job: Claimed, runAt: Date, reason: string, now = new Date()): Promise<void> {
    await this.owned(this.db.updateTable("jobs"), job)
      .set((eb) => ({
        state: "queued",
        attempts: eb("attempts", "-", 1),
        locked_until: null,
        run_at: runAt.toISOString(),
        last_error: reason.slice(0, 2000),
        updated_at: now.toISOString(),
      }))
      .where("state", "=", "running")
      .execute();
  }

  /** Marks the job done; false when the claim had been lost (another worker holds the job now). */
  async complete(job: Claimed, now = new Date()): Promise<boolean> {
    const result: UpdateResult = await this.owned(
      this.db
        .updateTable("jobs")
        .set({ state: "done", locked_until: null, last_error: null, updated_at: now.toISOString() }),
      job,
    ).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Records a failure: retried after an exponential backoff, or dead after its last attempt. */
  async fail(
    job: Pick<JobRow, "id" | "lease_id" | "attempts" | "max_attempts">,
    error: string,
    baseBackoffMs = 5000,
    now = new Date(),
  ): Promise<"retry" | "dead"> {
    const dead = job.attempts >= job.max_attempts;
    const delay = Math.min(baseBackoffMs * 2 ** (job.attempts - 1), 6 * 3600_000);
    await this.owned(
      this.db.updateTable("jobs").set({
        state: dead ? "dead" : "queued",
        locked_until: null,
        run_at: new Date(now.getTime() + delay).toISOString(),
        last_error: error.slice(0, 2000),
        updated_at: now.toISOString(),
      }),
      job,
    ).execute();
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

  /** Per lane: due jobs waiting for a slot (a running one whose lease ran out counts as due), running ones. */
  async laneFigures(now = new Date()): Promise<LaneFigures[]> {
    const stamp = now.toISOString();
    const rows = await this.db
      .selectFrom("jobs")
      .select((eb) => [
        "lane",
        eb
          .case()
          .when(eb.and([eb("state", "=", "running"), eb("locked_until", ">=", stamp)]))
          .then("running")
          .else("due")
          .end()
          .as("kind"),
        eb.fn.countAll<number>().as("n"),
        eb.fn.min("run_at").as("oldest"),
      ])
      .where((eb) =>
        eb.or([eb.and([eb("state", "=", "queued"), eb("run_at", "<=", stamp)]), eb("state", "=", "running")]),
      )
      .groupBy(["lane", "kind"])
      .execute();
    return JOB_LANES.map((lane) => {
      const due = rows.find((r) => r.lane === lane && r.kind === "due");
      const running = rows.find((r) => r.lane === lane && r.kind === "running");
      return {
        lane,
        due: Number(due?.n ?? 0),
        running: Number(running?.n ?? 0),
        oldestDueAgeSec: due?.oldest
          ? Math.max(0, Math.round((now.getTime() - Date.parse(due.oldest)) / 1000))
          : null,
      };
    });
  }
}
