// The daily openFDA warmer: searches the popular drug names again so their buyers are served from the cache.
// Each name costs one or two requests, well inside 1,000 a day without a key.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import { refreshLabelSearch } from "./label-cache.ts";
import { parseLabelQuery } from "./query.ts";
import type { OpenFdaSettings } from "./settings.ts";
import { OpenFdaUnavailable } from "./upstream.ts";

export const OPENFDA_WARMER = "openfda.labels";
export const OPENFDA_WARM_EVERY_MS = 24 * 3600_000;

interface WarmCounts {
  [count: string]: unknown;
  queries: number;
  refreshed: number;
  matched: number;
  failed: number;
  errors: Array<{ query: string; error: string }>;
}

async function warmLabels(
  ctx: Pick<HandlerContext, "store" | "upstreams">,
  settings: OpenFdaSettings,
): Promise<WarmCounts> {
  const counts: WarmCounts = {
    queries: settings.warmQueries.length,
    refreshed: 0,
    matched: 0,
    failed: 0,
    errors: [],
  };
  for (const text of settings.warmQueries) {
    const query = parseLabelQuery(text);
    if ("error" in query) throw new Error(`OPENFDA_WARM_QUERIES: "${text}": ${query.error}`);
    try {
      const doc = await refreshLabelSearch(ctx, settings, query);
      counts.refreshed++;
      if (doc.body.labels.length > 0) counts.matched++;
    } catch (error) {
      if (!(error instanceof OpenFdaUnavailable)) throw error;
      counts.failed++;
      counts.errors.push({ query: text, error: error.message });
      // A rate limit spends the rest of the day's quota for nothing; stop and try tomorrow.
      if (error.status === 429) break;
    }
  }
  if (counts.queries > 0 && counts.refreshed === 0) {
    throw new Error(`no drug name was refreshed; first error: ${counts.errors[0]?.error ?? "none"}`);
  }
  return counts;
}

export function openFdaWarmer(settings: OpenFdaSettings): Warmer {
  return { name: OPENFDA_WARMER, everyMs: OPENFDA_WARM_EVERY_MS, run: (ctx) => warmLabels(ctx, settings) };
}
