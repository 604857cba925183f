// The daily courts warmer: searches the configured popular queries again so buyers of those are served
// from the cache. One search at a time, within the warmer's share of CourtListener's windows; when the
// windows are spent or CourtListener asks for a pause, the rest is queued as a job due when it ends.
import type { HandlerContext, JobHandler, Warmer } from "../../catalog/product.ts";
import { parseCourtsQuery } from "./query.ts";
import { refreshSearch } from "./search-cache.ts";
import type { CourtsSettings } from "./settings.ts";
import { CourtListenerUnavailable } from "./upstream.ts";

export const COURTS_WARMER = "courts.warm";
export const WARM_EVERY_MS = 24 * 3600_000;
/** The queue of a warm round's remaining queries, resumed when CourtListener's budget frees. */
export const COURTS_WARM_RESUME_QUEUE = "courts.warm-resume";
/**
 * One pending resume at a time: the warmer queues "resume"; a resume job that is stopped again queues under
 * the other key, since its own is still running.
 */
const RESUME_KEYS = ["resume", "resume-again"] as const;

interface WarmCounts {
  [count: string]: unknown;
  queries: number;
  refreshed: number;
  failed: number;
  /** Left for the resume job because the budget was spent or CourtListener asked for a pause. */
  deferred: number;
  /** When the deferred queries are searched (ISO), or null. */
  resumeAt: string | null;
  hits: number;
  errors: Array<{ query: string; error: string }>;
}

type Ctx = Pick<HandlerContext, "store" | "upstreams">;

/** Searches `queries` in order; what does not fit in the budget now is queued for when it frees. */
export async function warmCourtQueries(
  ctx: Ctx,
  settings: CourtsSettings,
  queries: readonly string[] = settings.warmQueries,
  resumeKey: (typeof RESUME_KEYS)[number] = RESUME_KEYS[0],
): Promise<WarmCounts> {
  const counts: WarmCounts = {
    queries: queries.length,
    refreshed: 0,
    failed: 0,
    deferred: 0,
    resumeAt: null,
    hits: 0,
    errors: [],
  };
  for (const [index, text] of queries.entries()) {
    const query = parseCourtsQuery(text);
    if ("error" in query) throw new Error(`COURTS_WARM_QUERIES: "${text}": ${query.error}`);
    try {
      const doc = await refreshSearch(ctx, settings, query, { background: true });
      counts.refreshed++;
      counts.hits += doc.body.hits.length;
    } catch (error) {
      if (!(error instanceof CourtListenerUnavailable)) throw error;
      if (error.throttled && !error.recordedSample) {
        const rest = queries.slice(index);
        const runAt = new Date(Date.now() + (error.retryAfterSec ?? 60) * 1000);
        await ctx.store.jobs.enqueue(
          COURTS_WARM_RESUME_QUEUE,
          resumeKey,
          { queries: rest, key: resumeKey },
          { runAt },
        );
        counts.deferred = rest.length;
        counts.resumeAt = runAt.toISOString();
        break;
      }
      counts.failed++;
      counts.errors.push({ query: text, error: error.message });
    }
  }
  if (counts.queries > 0 && counts.refreshed === 0 && counts.deferred === 0) {
    const first = counts.errors[0];
    throw new Error(
      `no popular query was refreshed (${counts.failed} failed)` +
        (first ? `; first error for "${first.query}": ${first.error}` : ""),
    );
  }
  return counts;
}

export function courtsWarmer(settings: CourtsSettings): Warmer {
  return {
    name: COURTS_WARMER,
    everyMs: WARM_EVERY_MS,
    run: (ctx) => warmCourtQueries(ctx, settings),
  };
}

/** Goes on with a warm round CourtListener's budget interrupted. */
export function courtsWarmResume(settings: CourtsSettings): JobHandler {
  return async (payload, ctx) => {
    const { queries, key } = (payload ?? {}) as { queries?: unknown; key?: unknown };
    if (!Array.isArray(queries) || !queries.every((q) => typeof q === "string")) {
      throw new Error(`${COURTS_WARM_RESUME_QUEUE}: payload without a list of queries`);
    }
    const next = key === RESUME_KEYS[0] ? RESUME_KEYS[1] : RESUME_KEYS[0];
    await warmCourtQueries(ctx, settings, queries, next);
  };
}
