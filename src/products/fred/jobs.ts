// The fetch-on-miss job: one series, queued by a request for a series not cached yet (deduplicated by id).
import type { JobHandler } from "../../catalog/product.ts";
import { refreshSeries } from "./refresh.ts";
import { type FredSettings, SERIES_ID } from "./settings.ts";

export function seriesJobHandler(settings: FredSettings): JobHandler {
  return async (payload, ctx) => {
    const seriesId = (payload as { seriesId?: unknown } | null)?.seriesId;
    if (typeof seriesId !== "string" || !SERIES_ID.test(seriesId))
      throw new Error(`fred-series job without a valid seriesId: ${JSON.stringify(payload)}`);
    const outcome = await refreshSeries(ctx, settings, seriesId);
    ctx.log.info({ series: seriesId, outcome: outcome.status }, "FRED series fetched on demand");
  };
}
