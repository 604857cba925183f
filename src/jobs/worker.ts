// Runs queued jobs (fetch-on-miss, warmers, settlement reconciliation) and keeps warmers on schedule.
import type { BackgroundTask, Family, HandlerContext, JobHandler, Warmer } from "../catalog/product.ts";
import { errorText } from "../json.ts";
import { releaseMemorySoon } from "../memory-release.ts";
import type { JobRow } from "../store/jobs.ts";
import { UpstreamBudgetError } from "../upstream/client.ts";

const WARMER_QUEUE = "warmer";
/** Finished jobs and payment nonce claims are kept this long (for inspection), then purged. */
const KEEP_FINISHED_MS = 7 * 24 * 3600_000;
/** A warmer is not started again within this window of its last start, whatever its outcome. */
const MIN_GAP_MS = 10 * 60_000;

export class Worker {
  private readonly ctx: HandlerContext;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly warmers = new Map<string, Warmer>();
  private readonly background: BackgroundTask[] = [];
  private readonly runningTasks: Array<{ name: string; stop: () => Promise<void> }> = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private scheduleTimer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private current: JobRow | undefined;
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
      for (const warmer of family.warmers ?? []) this.warmers.set(warmer.name, warmer);
      this.background.push(...(family.background ?? []));
      for (const [queue, handler] of Object.entries(family.jobs ?? {})) this.handlers.set(queue, handler);
    }
    for (const [queue, handler] of Object.entries(extraHandlers)) this.handlers.set(queue, handler);
    this.handlers.set(WARMER_QUEUE, async (payload) => {
      await this.runWarmer(String((payload as { warmer?: unknown })?.warmer));
    });
  }

  start(): void {
    const poll = () => {
      if (this.stopped) return;
      this.running = this.drain().finally(() => {
        this.running = undefined;
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
   * Stops taking jobs and waits up to `graceMs` for the running one; a job still running then is handed
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
    if (!this.running) return;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      this.running.then(() => true),
      new Promise<false>((resolve) => {
        if (Number.isFinite(graceMs)) timer = setTimeout(() => resolve(false), graceMs);
      }),
    ]);
    clearTimeout(timer);
    const unfinished = this.current;
    if (!finished && unfinished) {
      await this.ctx.store.jobs.release(unfinished.id);
      this.ctx.log.warn(
        { queue: unfinished.queue, key: unfinished.key },
        "job handed back unfinished at shutdown",
      );
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

  /** Runs due jobs until none is left; returns how many ran. */
  async drain(): Promise<number> {
    let ran = 0;
    while (!this.stopped) {
      const job = await this.ctx.store.jobs.claim([...this.handlers.keys()], this.ctx.config.jobLeaseMs);
      if (!job) break;
      this.current = job;
      await this.runJob(job);
      this.current = undefined;
      ran++;
    }
    return ran;
  }

  private async runJob(job: JobRow): Promise<void> {
    const handler = this.handlers.get(job.queue);
    try {
      if (!handler) throw new Error(`no handler for queue ${job.queue}`);
      await handler(JSON.parse(job.payload), this.ctx);
      await this.ctx.store.jobs.complete(job.id);
    } catch (error) {
      const message = errorText(error);
      if (error instanceof UpstreamBudgetError) {
        // The upstream is paused or its budget spent (SEC's ten-minute block): wait for it, attempt not counted.
        await this.ctx.store.jobs.postpone(job.id, error.availableAt, message);
        this.ctx.log.info({ queue: job.queue, key: job.key, until: error.availableAt }, "job postponed");
        return;
      }
      // A failed warmer waits out the same gap as any warmer start; other jobs back off from 5 s.
      const next = await this.ctx.store.jobs.fail(
        job,
        message,
        job.queue === WARMER_QUEUE ? MIN_GAP_MS : 5000,
      );
      this.ctx.log.warn(
        { queue: job.queue, key: job.key, attempt: job.attempts, next, err: message },
        "job failed",
      );
    }
  }

  async runWarmer(name: string): Promise<Record<string, unknown>> {
    const warmer = this.warmers.get(name);
    if (!warmer) throw new Error(`unknown warmer ${name}`);
    const runId = await this.ctx.store.warmerRuns.start(name);
    try {
      const counts = await warmer.run(this.ctx);
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
