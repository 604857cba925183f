// The FRED warmer: refreshes the configured series (FRED_SERIES) and every series cached on demand since.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import { errorText } from "../../json.ts";
import { readAllSummaries } from "./documents.ts";
import { refreshSeries } from "./refresh.ts";
import type { FredSettings } from "./settings.ts";
import { canFetchFred, FredNotConfiguredError } from "./upstream.ts";

export const FRED_WARMER = "fred.series";
/** FRED updates most series at most daily; four runs a day keep daily series within hours of a release. */
export const FRED_WARMER_EVERY_MS = 6 * 3600_000;

interface FredWarmerCounts extends Record<string, unknown> {
  series: number;
  refreshed: number;
  refused: number;
  missing: number;
  failed: number;
  observations: number;
  errors: string[];
}

/** The configured series first, then the others already in the cache (unknown ids are not retried). */
async function seriesToWarm(ctx: Pick<HandlerContext, "store">, settings: FredSettings): Promise<string[]> {
  const cached = (await readAllSummaries(ctx.store))
    .filter((d) => d.body.status !== "missing")
    .map((d) => d.body.seriesId);
  return [...new Set([...settings.series, ...cached])];
}

export async function warmFred(
  ctx: Pick<HandlerContext, "upstreams" | "store" | "log">,
  settings: FredSettings,
): Promise<FredWarmerCounts> {
  if (!canFetchFred(ctx, settings)) throw new FredNotConfiguredError(settings);
  const ids = await seriesToWarm(ctx, settings);
  const counts: FredWarmerCounts = {
    series: ids.length,
    refreshed: 0,
    refused: 0,
    missing: 0,
    failed: 0,
    observations: 0,
    errors: [],
  };
  for (const id of ids) {
    try {
      const outcome = await refreshSeries(ctx, settings, id);
      if (outcome.status === "ok") {
        counts.refreshed++;
        counts.observations += outcome.observations;
      } else counts[outcome.status]++;
    } catch (error) {
      counts.failed++;
      const message = errorText(error);
      if (counts.errors.length < 5) counts.errors.push(`${id}: ${message}`);
      ctx.log.warn({ series: id, err: message }, "FRED series refresh failed");
    }
  }
  if (counts.failed > 0 && counts.failed === ids.length) {
    throw new Error(`every FRED series failed to refresh; first: ${counts.errors[0]}`);
  }
  return counts;
}

export function fredWarmer(settings: FredSettings): Warmer {
  return { name: FRED_WARMER, everyMs: FRED_WARMER_EVERY_MS, run: (ctx) => warmFred(ctx, settings) };
}
