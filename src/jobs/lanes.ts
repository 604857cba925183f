// Which lane each job waits in and how long it may run: buyer-triggered fetches first, warmers next, bulk imports
// last, each lane with worker slots of its own, so that an hour-long import never holds up a buyer's fetch.
import type { JobHandler, JobLane, Warmer } from "../catalog/product.ts";
import { defaultLane } from "../store/jobs.ts";

/** Every job's time limit unless its kind sets one: a fetch is one item, a warmer one refresh, bulk an import. */
export const LANE_TIME_LIMIT_MS: Record<JobLane, number> = {
  fetch: 2 * 60_000,
  warm: 30 * 60_000,
  bulk: 2 * 3600_000,
};

/** The first retry's delay after a failure (doubled on each attempt) unless the kind sets its own. */
const RETRY_BACKOFF_MS = 5000;

export const WARMER_QUEUE = "warmer";

/** A job kind as the worker runs it: its handler with every default filled in. */
interface ResolvedKind {
  run: JobHandler;
  timeLimitMs: number;
  retryBackoffMs: number;
}

/** The job kinds the families declare, and the warmers (the warmer queue's kinds, one per warmer). */
export class JobKinds {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly warmers = new Map<string, Warmer>();
  /** A failed warmer waits out this gap (the same as between any two of its starts). */
  private readonly warmerBackoffMs: number;

  constructor(warmerBackoffMs: number) {
    this.warmerBackoffMs = warmerBackoffMs;
  }

  addHandler(queue: string, handler: JobHandler): void {
    this.handlers.set(queue, handler);
  }

  addWarmer(warmer: Warmer): void {
    this.warmers.set(warmer.name, warmer);
  }

  get queues(): string[] {
    return [...this.handlers.keys()];
  }

  /** The lane a job of `queue` (a warmer job: named by its key) is filed in when the enqueue names none. */
  laneOf(queue: string, key: string): JobLane {
    if (queue === WARMER_QUEUE) return this.warmers.get(key)?.lane ?? defaultLane(queue);
    return this.handlers.get(queue)?.lane ?? defaultLane(queue);
  }

  /**
   * How a job runs: its queue's handler, the time limit and back-off of its kind, else of the lane its kind
   * declares (an item a warmer queued into a fetch queue waits in the warm lane but is still one fetch).
   */
  resolve(queue: string, key: string): ResolvedKind | undefined {
    const run = this.handlers.get(queue);
    if (!run) return undefined;
    const declared = queue === WARMER_QUEUE ? this.warmers.get(key) : run;
    return {
      run,
      timeLimitMs: declared?.timeLimitMs ?? LANE_TIME_LIMIT_MS[this.laneOf(queue, key)],
      retryBackoffMs:
        queue === WARMER_QUEUE ? this.warmerBackoffMs : (run.retryBackoffMs ?? RETRY_BACKOFF_MS),
    };
  }
}
