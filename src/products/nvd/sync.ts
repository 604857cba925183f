// The incremental CVE sync: every record NVD modified since the last run, asked by last-modified windows of
// at most 120 days and paged with startIndex/resultsPerPage. Progress is saved after every page, so a run
// stopped by its time budget, NVD's rate limit or an error resumes where it stopped. NVD's rate-limit refusals
// are paused for and retried by the upstream client (NVD's throttle policy); the run stops on the client's
// final refusal. NVD sometimes refuses a page of its documented maximum (404 with the reason in a `message`
// header): the run halves the page and goes on from the same startIndex.
import type { HandlerContext } from "../../catalog/product.ts";
import { UpstreamBudgetError, UpstreamError } from "../../upstream/client.ts";
import { normaliseCvePage } from "./normalise.ts";
import { NvdRepository } from "./repository.ts";
import type { NvdSettings } from "./settings.ts";
import { CVE_SYNC_STATE, type CveSyncState, INITIAL_SYNC_STATE } from "./sync-state.ts";
import { fetchCvePage, NVD_MAX_PAGE_SIZE } from "./upstream.ts";
import { DAY_MS, splitWindows } from "./windows.ts";

export interface SyncOptions {
  now?: Date;
  pageSize?: number;
  /** Stop starting new pages after this long (the rest is left for a continuation). */
  budgetMs?: number;
  /** Each run re-reads this much before the previous end, for changes NVD published late. */
  overlapMs?: number;
  /** Records last modified this long before the searchable window are pruned. */
  pruneMarginMs?: number;
}

/** The smallest page asked for after refusals; a window NVD refuses even at this size fails the run. */
export const MIN_PAGE_SIZE = 50;

/** NVD refused the page itself (404 on a window query, reason in its `message` header). */
function refusedPage(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && !(error instanceof UpstreamBudgetError) && error.status === 404;
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

/** One run's settings and running totals, shared by its steps. */
interface SyncRun {
  ctx: Pick<HandlerContext, "store" | "upstreams">;
  settings: NvdSettings;
  repository: NvdRepository;
  state: CveSyncState;
  counts: SyncCounts;
  now: Date;
  pageSize: number;
  deadline: number;
}

type PendingWindow = NonNullable<CveSyncState["pending"]>;

export async function syncRecentCves(
  ctx: Pick<HandlerContext, "store" | "upstreams">,
  settings: NvdSettings,
  options: SyncOptions = {},
): Promise<SyncCounts> {
  const repository = NvdRepository.of(ctx.store);
  const state: CveSyncState = {
    ...INITIAL_SYNC_STATE,
    ...(await repository.getState<CveSyncState>(CVE_SYNC_STATE)),
  };
  const pageSize = options.pageSize ?? NVD_MAX_PAGE_SIZE;
  const run: SyncRun = {
    ctx,
    settings,
    repository,
    state,
    counts: {
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
    },
    now: options.now ?? new Date(),
    pageSize,
    deadline: Date.now() + (options.budgetMs ?? DEFAULT_SYNC_BUDGET_MS),
  };
  const { counts } = run;
  try {
    while (!counts.complete) {
      const pending = state.pending ?? nextWindow(run, options.overlapMs ?? 3600_000);
      if (!pending) {
        counts.complete = true;
        break;
      }
      counts.windows++;
      if (!(await syncWindow(run, pending))) return counts;
      state.syncedThrough = pending.end;
      state.syncedAt = new Date().toISOString();
      state.pending = null;
      if (Date.parse(pending.end) >= run.now.getTime()) counts.complete = true;
      await repository.putState(CVE_SYNC_STATE, state);
    }
    counts.pruned = await pruneOutsideWindow(repository, settings, options.pruneMarginMs ?? 7 * DAY_MS);
    return counts;
  } finally {
    if (counts.cves > 0 || counts.pruned > 0) state.generation = (state.generation ?? 0) + 1;
    await repository.putState(CVE_SYNC_STATE, state);
    counts.syncedThrough = state.syncedThrough;
  }
}

/** The next last-modified window after what is synced (set as pending), or undefined at the present. */
function nextWindow(run: SyncRun, overlapMs: number): PendingWindow | undefined {
  const { state } = run;
  const earliest = run.now.getTime() - run.settings.recentDays * DAY_MS;
  let start: number;
  if (state.syncedThrough === null || Date.parse(state.syncedThrough) < earliest) {
    // First run, or a gap longer than the window: start over from the window's beginning.
    start = earliest;
    state.coveredSince = new Date(start).toISOString();
  } else {
    start = Math.max(earliest, Date.parse(state.syncedThrough) - overlapMs);
  }
  const next = splitWindows(new Date(start), run.now)[0];
  if (!next) return undefined;
  state.pending = {
    start: next.start.toISOString(),
    end: next.end.toISOString(),
    nextIndex: 0,
    totalResults: null,
  };
  return state.pending;
}

/** Pages through one window, saving progress after each page: false when the run stopped before its end. */
async function syncWindow(run: SyncRun, pending: PendingWindow): Promise<boolean> {
  const { counts, state } = run;
  while (pending.totalResults === null || pending.nextIndex < pending.totalResults) {
    if (Date.now() >= run.deadline) {
      counts.stoppedBy = "budget";
      return false;
    }
    const fetched = await fetchPage(run, pending);
    if (!fetched) return false;
    const page = normaliseCvePage(fetched.json);
    const fetchedAt = new Date().toISOString();
    await run.repository.upsertCves(
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
    await run.repository.putState(CVE_SYNC_STATE, state);
  }
  return true;
}

/**
 * One page at the run's page size, halved while NVD refuses it; undefined when the run stops on NVD's rate
 * limit after some pages (with none yet, that is an error). The client waits out refusals by NVD's throttle
 * policy; its `UpstreamBudgetError` means they lasted (or another node's refusal paused NVD for longer).
 */
async function fetchPage(
  run: SyncRun,
  pending: PendingWindow,
): Promise<Awaited<ReturnType<typeof fetchCvePage>> | undefined> {
  const { counts } = run;
  const refusals: number[] = [];
  for (;;) {
    try {
      return await fetchCvePage(run.ctx, run.settings, {
        window: { start: new Date(pending.start), end: new Date(pending.end) },
        startIndex: pending.nextIndex,
        resultsPerPage: run.pageSize,
        onRefused: (status) => noteRefusal(run, refusals, status),
      });
    } catch (error) {
      if (refusedPage(error) && run.pageSize > MIN_PAGE_SIZE) {
        run.pageSize = Math.max(MIN_PAGE_SIZE, Math.floor(run.pageSize / 2));
        counts.pageSize = run.pageSize;
        continue;
      }
      if (!(error instanceof UpstreamBudgetError)) throw error;
      if (counts.pages === 0) throw new Error(rateLimitStop(error, refusals, pending));
      counts.stoppedBy = "rate-limit";
      return undefined;
    }
  }
}

/** Counts one rate-limit refusal in the run's totals and the saved state (shown by the status route). */
function noteRefusal(run: SyncRun, refusals: number[], status: number): void {
  refusals.push(status);
  run.counts.rateLimited++;
  const total = (run.state.rateLimited?.total ?? 0) + 1;
  run.state.rateLimited = { total, lastAt: new Date().toISOString() };
}

/** Why a run stopped on NVD's rate limit before its first page, and where the next run resumes. */
function rateLimitStop(error: UpstreamBudgetError, refusals: number[], pending: PendingWindow): string {
  const resume = `the sync resumes from ${pending.start} (startIndex ${pending.nextIndex}) on the next run`;
  if (refusals.length === 0) return `NVD's request budget held the sync back (${error.message}); ${resume}`;
  const status = error.status ?? refusals.at(-1);
  return `NVD refused every request as over its rate limit (HTTP ${status}), ${refusals.length} times in a row with back-off; ${resume}`;
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
