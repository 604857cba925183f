// One NVD family instance's moving parts: its settings, its search index, its warmers and its jobs.
import os from "node:os";
import {
  type BackgroundTask,
  type HandlerContext,
  type JobHandler,
  jobKind,
  type Warmer,
} from "../../catalog/product.ts";
import { refreshKev } from "./kev.ts";
import { LiveCveSearch } from "./live-search.ts";
import type { NvdSettings } from "./settings.ts";
import { type SyncCounts, type SyncOptions, syncRecentCves } from "./sync.ts";

export const NVD_SYNC_WARMER = "nvd.sync";
const NVD_KEV_WARMER = "nvd.kev";
/** Continuations of a sync that stopped early (time budget or rate limit). */
export const NVD_SYNC_QUEUE = "nvd.sync";
const SYNC_LEASE = "nvd.sync";
/** Longer than a run's time budget plus its last page; the worker's job lease is 10 minutes. */
const SYNC_LEASE_MS = 8 * 60_000;
/** After a rate-limit stop, NVD gets this long before the continuation. */
const RATE_LIMIT_PAUSE_MS = 5 * 60_000;

export interface NvdRuntime {
  settings: NvdSettings;
  search: LiveCveSearch;
  /** Options every sync run of this instance gets (tests shorten its pauses). */
  syncOptions: SyncOptions;
}

export function createNvdRuntime(
  settings: NvdSettings,
  options: { recheckMs?: number; sync?: SyncOptions } = {},
): NvdRuntime {
  return {
    settings,
    search: new LiveCveSearch(settings.recentDays, options.recheckMs),
    syncOptions: options.sync ?? {},
  };
}

/**
 * One sync run, on one node at a time (a lease); then this node rebuilds its index if the run changed the
 * store. When the run stopped early a continuation is queued (keyed by progress and time, so a running
 * continuation can queue the next one: the job queue deduplicates keys that are queued or running).
 */
export async function runSync(
  ctx: HandlerContext,
  runtime: NvdRuntime,
  options: SyncOptions = {},
): Promise<SyncCounts | { skipped: string }> {
  const holder = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2)}`;
  if (!(await ctx.store.leases.acquire(SYNC_LEASE, holder, SYNC_LEASE_MS))) {
    return { skipped: "another node is syncing (it holds the nvd.sync lease)" };
  }
  try {
    const counts = await syncRecentCves(ctx, runtime.settings, { ...runtime.syncOptions, ...options });
    if (!counts.complete) {
      const pause = counts.stoppedBy === "rate-limit" ? RATE_LIMIT_PAUSE_MS : 0;
      await ctx.store.jobs.enqueue(
        NVD_SYNC_QUEUE,
        `continue:${counts.syncedThrough ?? "start"}:${counts.pages}:${Date.now()}`,
        {},
        { runAt: new Date(Date.now() + pause), maxAttempts: 1 },
      );
    }
    return counts;
  } finally {
    await ctx.store.leases.release(SYNC_LEASE, holder);
    await runtime.search
      .refresh(ctx)
      .catch((error) => ctx.log.warn({ err: String(error) }, "nvd: rebuilding the search index failed"));
  }
}

export function nvdWarmers(runtime: NvdRuntime): Warmer[] {
  return [
    {
      name: NVD_SYNC_WARMER,
      // NVD publishes modifications about every two hours; the spec promises records within 48 hours.
      everyMs: 2 * 3600_000,
      lane: "bulk",
      run: (ctx) => runSync(ctx, runtime),
    },
    {
      name: NVD_KEV_WARMER,
      everyMs: 24 * 3600_000,
      run: (ctx) => refreshKev(ctx),
    },
  ];
}

export function syncContinuationJob(runtime: NvdRuntime): JobHandler {
  return jobKind({ lane: "bulk" }, async (_payload, ctx) => {
    const counts = await runSync(ctx, runtime);
    ctx.log.info({ counts }, "nvd: sync continuation finished");
  });
}

/** How often a worker node looks for another node's sync (a one-row read) to rebuild its index. */
const INDEX_CHECK_MS = 30_000;

/**
 * Keeps this node's search index loaded without waiting for a buyer: built at start, then rebuilt whenever
 * the store shows a new sync generation. Nodes without a worker load it on their first search instead.
 */
export function searchIndexTask(runtime: NvdRuntime): BackgroundTask {
  return {
    name: "nvd.search-index",
    start(ctx) {
      const refresh = () =>
        runtime.search
          .current(ctx)
          .catch((error) => ctx.log.warn({ err: String(error) }, "nvd: loading the search index failed"));
      void refresh();
      const timer = setInterval(refresh, INDEX_CHECK_MS);
      timer.unref();
      return {
        stop: async () => {
          clearInterval(timer);
          await runtime.search.settled();
        },
      };
    },
  };
}
