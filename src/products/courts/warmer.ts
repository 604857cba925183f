// The daily courts warmer: searches the configured popular queries again so buyers of those are served
// from the cache. One search at a time; it stops at the first 429 rather than spend a throttled quota.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import { parseCourtsQuery } from "./query.ts";
import { refreshSearch } from "./search-cache.ts";
import type { CourtsSettings } from "./settings.ts";
import { CourtListenerUnavailable } from "./upstream.ts";

export const COURTS_WARMER = "courts.warm";
export const WARM_EVERY_MS = 24 * 3600_000;

export interface WarmCounts {
  [count: string]: unknown;
  queries: number;
  refreshed: number;
  failed: number;
  /** Not tried because CourtListener asked for a pause. */
  skipped: number;
  hits: number;
  errors: Array<{ query: string; error: string }>;
}

export async function warmCourtQueries(
  ctx: Pick<HandlerContext, "store" | "upstreams">,
  settings: CourtsSettings,
): Promise<WarmCounts> {
  const counts: WarmCounts = {
    queries: settings.warmQueries.length,
    refreshed: 0,
    failed: 0,
    skipped: 0,
    hits: 0,
    errors: [],
  };
  for (const [index, text] of settings.warmQueries.entries()) {
    const query = parseCourtsQuery(text);
    if ("error" in query) throw new Error(`COURTS_WARM_QUERIES: "${text}": ${query.error}`);
    try {
      const doc = await refreshSearch(ctx, settings, query);
      counts.refreshed++;
      counts.hits += doc.body.hits.length;
    } catch (error) {
      if (!(error instanceof CourtListenerUnavailable)) throw error;
      counts.failed++;
      counts.errors.push({ query: text, error: error.message });
      if (error.status === 429) {
        counts.skipped = settings.warmQueries.length - index - 1;
        break;
      }
    }
  }
  if (counts.queries > 0 && counts.refreshed === 0) {
    const first = counts.errors[0];
    throw new Error(
      `no popular query was refreshed (${counts.failed} failed, ${counts.skipped} skipped)` +
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
