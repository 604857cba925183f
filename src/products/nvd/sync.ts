// The incremental CVE sync: every record NVD modified since the last run, asked by last-modified windows of
// at most 120 days and paged with startIndex/resultsPerPage. Progress is saved after every page, so a run
// stopped by its time budget, NVD's rate limit or an error resumes where it stopped. NVD sometimes refuses a
// page of its documented maximum (404 with the reason in a `message` header): the run halves the page and
// goes on from the same startIndex.
import { setTimeout as delay } from "node:timers/promises";
import type { HandlerContext } from "../../catalog/product.ts";
import { UpstreamError } from "../../upstream/client.ts";
import { normaliseCvePage } from "./normalise.ts";
import { NvdRepository } from "./repository.ts";
import type { NvdSettings } from "./settings.ts";
import { CVE_SYNC_STATE, type CveSyncState, INITIAL_SYNC_STATE } from "./sync-state.ts";
import {
  fetchCvePage,
  NVD_MAX_PAGE_SIZE,
  NVD_RATE_LIMIT_BACKOFF_MS,
  NvdRateLimitedError,
} from "./upstream.ts";
import { DAY_MS, splitWindows } from "./windows.ts";

export interface SyncOptions {
  now?: Date;
  pageSize?: number;
  /** Stop starting new pages after this long (the rest is left for a continuation). */
  budgetMs?: number;
  /** First pause after a rate-limit refusal; doubled on each further one. NVD's window is 30 s. */
  rateLimitBackoffMs?: number;
  /** Refusals in a row the run waits out before it stops. */
  rateLimitRetries?: number;
  /** Each run re-reads this much before the previous end, for changes NVD published late. */
  overlapMs?: number;
  /** Records last modified this long before the searchable window are pruned. */
  pruneMarginMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** The smallest page asked for after refusals; a window NVD refuses even at this size fails the run. */
export const MIN_PAGE_SIZE = 50;

/** NVD refused the page itself (404 on a window query, reason in its `message` header). */
function refusedPage(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && !(error instanceof NvdRateLimitedError) && error.status === 404;
}

export interface SyncCounts {
  windows: number;
  pages: number;
  /** The page size the run ended with: below NVD's maximum when NVD refused larger pages. */
  pageSize: number;
  cves: number;
  skipped: number;
  pruned: number;
  rateLimited: number;
  /** True when the run reached the present; false when it stopped early and left work for later. */
  complete: boolean;
  stoppedBy: "budget" | "rate-limit" | null;
  syncedThrough: string | null;
  [key: string]: unknown;
}

const DEFAULT_SYNC_BUDGET_MS = 2 * 60_000;

export async function syncRecentCves(
  ctx: Pick<HandlerContext, "store" | "upstreams">,
  settings: NvdSettings,
  options: SyncOptions = {},
): Promise<SyncCounts> {
  const now = options.now ?? new Date();
  let pageSize = options.pageSize ?? NVD_MAX_PAGE_SIZE;
  const deadline = Date.now() + (options.budgetMs ?? DEFAULT_SYNC_BUDGET_MS);
  const backoffMs = options.rateLimitBackoffMs ?? NVD_RATE_LIMIT_BACKOFF_MS;
  const retries = options.rateLimitRetries ?? 2;
  const overlapMs = options.overlapMs ?? 3600_000;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const repository = NvdRepository.of(ctx.store);
  const state: CveSyncState = {
    ...INITIAL_SYNC_STATE,
    ...(await repository.getState<CveSyncState>(CVE_SYNC_STATE)),
  };
  const counts: SyncCounts = {
    windows: 0,
    pages: 0,
    pageSize,
    cves: 0,
    skipped: 0,
    pruned: 0,
    rateLimited: 0,
    complete: false,
    stoppedBy: null,
    syncedThrough: state.syncedThrough,
  };
  const save = async () => {
    if (counts.cves > 0 || counts.pruned > 0) state.generation = (state.generation ?? 0) + 1;
    await repository.putState(CVE_SYNC_STATE, state);
    counts.syncedThrough = state.syncedThrough;
  };
  const earliest = now.getTime() - settings.recentDays * DAY_MS;

  try {
    while (!counts.complete) {
      if (!state.pending) {
        let start: number;
        if (state.syncedThrough === null || Date.parse(state.syncedThrough) < earliest) {
          // First run, or a gap longer than the window: start over from the window's beginning.
          start = earliest;
          state.coveredSince = new Date(start).toISOString();
        } else {
          start = Math.max(earliest, Date.parse(state.syncedThrough) - overlapMs);
        }
        const next = splitWindows(new Date(start), now)[0];
        if (!next) {
          counts.complete = true;
          break;
        }
        state.pending = {
          start: next.start.toISOString(),
          end: next.end.toISOString(),
          nextIndex: 0,
          totalResults: null,
        };
      }
      const pending = state.pending;
      counts.windows++;
      while (pending.totalResults === null || pending.nextIndex < pending.totalResults) {
        if (Date.now() >= deadline) {
          counts.stoppedBy = "budget";
          return counts;
        }
        let refusals = 0;
        let fetched: Awaited<ReturnType<typeof fetchCvePage>>;
        for (;;) {
          try {
            fetched = await fetchCvePage(ctx, settings, {
              window: { start: new Date(pending.start), end: new Date(pending.end) },
              startIndex: pending.nextIndex,
              resultsPerPage: pageSize,
            });
            break;
          } catch (error) {
            if (refusedPage(error) && pageSize > MIN_PAGE_SIZE) {
              pageSize = Math.max(MIN_PAGE_SIZE, Math.floor(pageSize / 2));
              counts.pageSize = pageSize;
              continue;
            }
            if (!(error instanceof NvdRateLimitedError)) throw error;
            counts.rateLimited++;
            state.rateLimited = {
              total: (state.rateLimited?.total ?? 0) + 1,
              lastAt: new Date().toISOString(),
            };
            if (refusals >= retries) {
              if (counts.pages === 0) {
                throw new Error(
                  `NVD refused every request as over its rate limit (HTTP ${error.status}), ${refusals + 1} times in a row with back-off; the sync resumes from ${pending.start} (startIndex ${pending.nextIndex}) on the next run`,
                );
              }
              counts.stoppedBy = "rate-limit";
              return counts;
            }
            await sleep(backoffMs * 2 ** refusals);
            refusals++;
          }
        }
        const page = normaliseCvePage(fetched.json);
        const fetchedAt = new Date().toISOString();
        await repository.upsertCves(
          page.cves.map((cve, i) => ({ cve, raw: page.raw[i] })),
          "sync",
          fetchedAt,
          fetched.recordedSample,
        );
        counts.pages++;
        counts.cves += page.cves.length;
        counts.skipped += page.skipped.length;
        const received = page.cves.length + page.skipped.length;
        pending.totalResults = page.totalResults;
        // An empty page before the end would page forever: NVD's total changed under us; the overlap of the
        // next run picks up whatever moved.
        pending.nextIndex = received === 0 ? page.totalResults : pending.nextIndex + received;
        state.lastPageAt = fetchedAt;
        await repository.putState(CVE_SYNC_STATE, state);
      }
      state.syncedThrough = pending.end;
      state.syncedAt = new Date().toISOString();
      state.pending = null;
      if (Date.parse(pending.end) >= now.getTime()) counts.complete = true;
      await repository.putState(CVE_SYNC_STATE, state);
    }
    counts.pruned = await pruneOutsideWindow(repository, settings, options.pruneMarginMs ?? 7 * DAY_MS);
    return counts;
  } finally {
    await save();
  }
}

/** Drops window-synced records older than the searchable window (by the store's own clock) plus a margin. */
async function pruneOutsideWindow(
  repository: NvdRepository,
  settings: NvdSettings,
  marginMs: number,
): Promise<number> {
  const newest = await repository.newestLastModified();
  if (!newest) return 0;
  const before = new Date(Date.parse(newest) - settings.recentDays * DAY_MS - marginMs).toISOString();
  return repository.pruneSynced(before);
}
