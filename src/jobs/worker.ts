// Runs queued jobs (fetch-on-miss, warmers, bulk imports, settlement reconciliation) in lanes with worker slots
// of their own, keeps each running job's lease alive, ends a job at its time limit, and keeps warmers on schedule.
import type {
  BackgroundTask,
  Family,
  HandlerContext,
  JobHandler,
  JobLane,
  JobRun,
  Warmer,
} from "../catalog/product.ts";
import { errorText } from "../json.ts";
import { releaseMemorySoon } from "../memory-release.ts";
import { JOB_LANES, type JobRow } from "../store/jobs.ts";
import { UpstreamBudgetError } from "../upstream/client.ts";
import { JobKinds, WARMER_QUEUE } from "./lanes.ts";

/** Finished jobs and payment nonce claims are kept this long (for inspection), then purged. */
const KEEP_FINISHED_MS = 7 * 24 * 3600_000;
/** A warmer is not started again within this window of its last start, whatever its outcome. */
const MIN_GAP_MS = 10 * 60_000;

/** A job that ran past its time limit: failed like any other error, so it is retried with back-off. */
class JobTimeLimitError extends Error {
  constructor(limitMs: number) {
    super(`time limit of ${limitMs >= 10_000 ? `${Math.round(limitMs / 1000)} s` : `${limitMs} ms`} reached`);
    this.name = "JobTimeLimitError";
  }
}

/** The job's lease ran out and another worker took it, or the worker is stopping: this run writes nothing. */
class JobLostError extends Error {
  constructor() {
    super("lease lost to another worker");
    this.name = "JobLostError";
  }
}

/** A line of worker slots: one lane each, or every lane at once (WORKER_LANES=1). */
interface Line {
  name: string;
  lanes: readonly JobLane[] | undefined;
  slots: number;
  running: Map<number, { job: JobRow; abort: AbortController; settled: Promise<void> }>;
  /** A claim round is under way (claims of one line are made one at a time). */
  filling: Promise<number> | undefined;
}

export class Worker {
  private readonly ctx: HandlerContext;
  private readonly kinds = new JobKinds(MIN_GAP_MS);
  private readonly warmers = new Map<string, Warmer>();
  private readonly background: BackgroundTask[] = [];
  private readonly runningTasks: Array<{ name: string; stop: () => Promise<void> }> = [];
  private readonly lines: Line[];
  private pollTimer: NodeJS.Timeout | undefined;
  private scheduleTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;

  private readonly periodic: Array<() => Promise<unknown>>;

  /** `periodic` tasks run on the schedule beat (every SCHEDULE_EVERY_MS), whether warmers run or not. */
  constructor(
    ctx: HandlerContext,
    families: Family[],
    extraHandlers: Record<string, JobHandler> = {},
    periodic: Array<() => Promise<unknown>> = [],
  ) {
    this.periodic = periodic;
    this.ctx = ctx;
    for (const family of families) {
      // A family disabled for missing live configuration must not reach its upstreams.
      if (family.unavailable) continue;
      for (const warmer of family.warmers ?? []) {
        this.warmers.set(warmer.name, warmer);
        this.kinds.addWarmer(warmer);
      }
      this.background.push(...(family.background ?? []));
      for (const [queue, handler] of Object.entries(family.jobs ?? {})) this.kinds.addHandler(queue, handler);
    }
    for (const [queue, handler] of Object.entries(extraHandlers)) this.kinds.addHandler(queue, handler);
    this.kinds.addHandler(WARMER_QUEUE, async (payload, _ctx, job) => {
      await this.runWarmer(String((payload as { warmer?: unknown })?.warmer), job);
    });
    ctx.store.jobs.fileLanes((queue, key) => this.kinds.laneOf(queue, key));
    const { workerConcurrency, workerLanes } = ctx.config;
    this.lines =
      workerLanes === 1
        ? [
            {
              name: "all",
              lanes: undefined,
              slots: workerConcurrency.fetch,
              running: new Map(),
              filling: undefined,
            },
          ]
        : JOB_LANES.map((lane) => ({
            name: lane,
            lanes: [lane],
            slots: workerConcurrency[lane],
            running: new Map(),
            filling: undefined,
          }));
  }

  start(): void {
    this.polling = true;
    const poll = () => {
      if (this.stopped) return;
      Promise.all(this.lines.map((line) => this.fill(line))).finally(() => {
        if (!this.stopped) this.pollTimer = setTimeout(poll, this.ctx.config.workerPollMs);
      });
    };
    const schedule = () => {
      if (this.stopped) return;
      if (this.ctx.config.runWarmers) {
        this.scheduleWarmers().catch((error) =>
          this.ctx.log.error({ err: String(error) }, "warmer scheduling failed"),
        );
      }
      this.purge().catch((error) => this.ctx.log.warn({ err: String(error) }, "purge failed"));
      for (const task of this.periodic) {
        task().catch((error) => this.ctx.log.warn({ err: String(error) }, "periodic task failed"));
      }
      this.scheduleTimer = setTimeout(schedule, this.ctx.config.scheduleEveryMs);
    };
    schedule();
    if (this.ctx.config.runWarmers) {
      for (const task of this.background) {
        try {
          this.runningTasks.push({ name: task.name, ...task.start(this.ctx) });
        } catch (error) {
          this.ctx.log.error({ task: task.name, err: String(error) }, "background task failed to start");
        }
      }
    }
    poll();
  }

  /**
   * Stops taking jobs and waits up to `graceMs` for the running ones; a job still running then is handed
   * back to the queue, so another worker takes it at once.
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.scheduleTimer);
    await Promise.all(
      this.runningTasks
        .splice(0)
        .map((task) =>
          task
            .stop()
            .catch((error) => this.ctx.log.warn({ task: task.name, err: String(error) }, "stop failed")),
        ),
    );
    await Promise.all(this.lines.map((line) => line.filling));
    const running = this.lines.flatMap((line) => [...line.running.values()]);
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(running.map((r) => r.settled)),
      new Promise<void>((resolve) => {
        if (Number.isFinite(graceMs)) timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    for (const line of this.lines) {
      for (const { job, abort } of line.running.values()) {
        abort.abort(new JobLostError());
        await this.ctx.store.jobs.release(job);
        this.ctx.log.warn({ queue: job.queue, key: job.key }, "job handed back unfinished at shutdown");
      }
    }
  }

  /** Drops what is no longer needed: expired sample counters, finished jobs and old nonce claims. */
  async purge(now = new Date()): Promise<void> {
    const keepUntil = new Date(now.getTime() - KEEP_FINISHED_MS);
    await this.ctx.store.samples.purgeExpired(now);
    await this.ctx.store.jobs.purgeDone(keepUntil);
    await this.ctx.store.paidAnswers.purgeExpired(now);
    // Claims must outlive any authorization a buyer could still present; payments are valid for minutes.
    await this.ctx.store.nonces.purgeBefore(
      new Date(Math.min(keepUntil.getTime(), now.getTime() - this.ctx.config.maxTimeoutSeconds * 1000 * 10)),
    );
  }

  /** Enqueues every warmer that is due: never succeeded, or its last success is older than its period. */
  async scheduleWarmers(now = new Date()): Promise<string[]> {
    const enqueued: string[] = [];
    for (const warmer of this.warmers.values()) {
      const status = await this.ctx.store.warmerRuns.status(warmer.name);
      const lastSuccess = status.lastSuccessAt ? Date.parse(status.lastSuccessAt) : 0;
      const lastStart = status.lastRunAt ? Date.parse(status.lastRunAt) : 0;
      const due = warmer.nextRunAt
        ? warmer.nextRunAt(lastSuccess ? new Date(lastSuccess) : null).getTime() <= now.getTime()
        : now.getTime() - lastSuccess >= warmer.everyMs;
      if (!due || now.getTime() - lastStart < MIN_GAP_MS) continue;
      if (await this.ctx.store.jobs.enqueue(WARMER_QUEUE, warmer.name, { warmer: warmer.name }, {}, now))
        enqueued.push(warmer.name);
    }
    return enqueued;
  }

  /**
   * Runs due jobs until none is left, each line up to its slots at once; returns how many ran. A job that fails
   * is not run again by the same drain (its retry waits for its back-off).
   */
  async drain(): Promise<number> {
    let ran = 0;
    while (!this.stopped) {
      for (const line of this.lines) ran += await this.fill(line, true);
      const running = this.lines.flatMap((line) => [...line.running.values()].map((r) => r.settled));
      if (running.length === 0) break;
      await Promise.race(running);
    }
    return ran;
  }

  /** Figures of this node's lines: how many slots each has and how many are busy. */
  slots(): Array<{ line: string; slots: number; busy: number }> {
    return this.lines.map((line) => ({ line: line.name, slots: line.slots, busy: line.running.size }));
  }

  /**
   * Claims jobs into the line's free slots; returns how many were started. One claim round per line at a time:
   * a call during a round joins it, and with `freshRound` claims again after it, since that round may have looked
   * before the caller's jobs were queued.
   */
  private async fill(line: Line, freshRound = false): Promise<number> {
    if (line.filling) {
      const joined = await line.filling;
      return freshRound ? joined + (await this.fill(line)) : joined;
    }
    const filling = this.claimInto(line).finally(() => {
      line.filling = undefined;
    });
    line.filling = filling;
    return filling;
  }

  private async claimInto(line: Line): Promise<number> {
    let started = 0;
    try {
      while (!this.stopped && line.running.size < line.slots) {
        const job = await this.ctx.store.jobs.claim(
          this.kinds.queues,
          this.ctx.config.jobLeaseMs,
          new Date(),
          line.lanes,
        );
        if (!job) break;
        this.begin(line, job);
        started++;
      }
    } catch (error) {
      this.ctx.log.warn({ lane: line.name, err: String(error) }, "claiming jobs failed");
    }
    return started;
  }

  private begin(line: Line, job: JobRow): void {
    const abort = new AbortController();
    const settled = this.runJob(job, abort).finally(() => {
      line.running.delete(job.id);
      // Started by start(): the freed slot takes the next due job at once rather than at the next poll.
      if (this.polling && !this.stopped) void this.fill(line);
    });
    line.running.set(job.id, { job, abort, settled });
  }

  /**
   * Runs one claimed job under its time limit, renewing its lease every third of JOB_LEASE_MS. At the limit the
   * job is failed (retried with back-off) and its slot freed, whether or not the handler heeds the abort.
   */
  private async runJob(job: JobRow, abort: AbortController): Promise<void> {
    const kind = this.kinds.resolve(job.queue, job.key);
    const leaseMs = this.ctx.config.jobLeaseMs;
    const timeLimitMs = kind?.timeLimitMs ?? 0;
    const limit = setTimeout(() => abort.abort(new JobTimeLimitError(timeLimitMs)), timeLimitMs);
    const heartbeat = setInterval(
      () => {
        this.ctx.store.jobs.heartbeat(job, leaseMs).then(
          (held) => {
            if (!held) abort.abort(new JobLostError());
          },
          (error) =>
            this.ctx.log.warn({ queue: job.queue, key: job.key, err: String(error) }, "heartbeat failed"),
        );
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    try {
      if (!kind) throw new Error(`no handler for queue ${job.queue}`);
      const run: JobRun = { timeLimitMs, signal: abort.signal };
      await untilAborted(kind.run(JSON.parse(job.payload), this.ctx, run), abort.signal);
      clearInterval(heartbeat);
      if (!(await this.ctx.store.jobs.complete(job))) {
        this.ctx.log.warn({ queue: job.queue, key: job.key }, "job finished after another worker took it");
      }
    } catch (error) {
      clearInterval(heartbeat);
      await this.failed(job, error, kind?.retryBackoffMs ?? 5000);
    } finally {
      clearTimeout(limit);
      clearInterval(heartbeat);
    }
  }

  private async failed(job: JobRow, error: unknown, retryBackoffMs: number): Promise<void> {
    const message = errorText(error);
    if (error instanceof JobLostError) {
      // At shutdown stop() hands the job back itself; otherwise another worker holds it now.
      if (!this.stopped)
        this.ctx.log.warn({ queue: job.queue, key: job.key }, "job abandoned: its lease was lost");
      return;
    }
    if (error instanceof UpstreamBudgetError) {
      // The upstream is paused or its budget spent (SEC's ten-minute block): wait for it, attempt not counted.
      await this.ctx.store.jobs.postpone(job, error.availableAt, message);
      this.ctx.log.info({ queue: job.queue, key: job.key, until: error.availableAt }, "job postponed");
      return;
    }
    const next = await this.ctx.store.jobs.fail(job, message, retryBackoffMs);
    this.ctx.log.warn(
      { queue: job.queue, key: job.key, lane: job.lane, attempt: job.attempts, next, err: message },
      "job failed",
    );
  }

  async runWarmer(name: string, job?: JobRun): Promise<Record<string, unknown>> {
    const warmer = this.warmers.get(name);
    if (!warmer) throw new Error(`unknown warmer ${name}`);
    const runId = await this.ctx.store.warmerRuns.start(name);
    try {
      // Raced with the job's signal, so a warmer stopped at its time limit is recorded as failed with that reason.
      const counts = await untilAborted(warmer.run(this.ctx, job), job?.signal);
      await this.ctx.store.warmerRuns.finish(runId, { ok: true, counts });
      this.ctx.log.info({ warmer: name, counts }, "warmer finished");
      releaseMemorySoon();
      return counts;
    } catch (error) {
      await this.ctx.store.warmerRuns.finish(runId, {
        ok: false,
        error: errorText(error),
      });
      throw error;
    }
  }
}

/** `work`, or the signal's reason as soon as it aborts (the work itself may go on; its outcome is dropped). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  work.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
