// Fetches one FRED series (metadata, tags, then observations when it may be sold) and stores it.
import type { HandlerContext } from "../../catalog/product.ts";
import { writeSeries } from "./documents.ts";
import { licenceVerdict } from "./licence.ts";
import {
  type FredOwner,
  latestObservation,
  normaliseObservations,
  normaliseReleaseSources,
  normaliseSeriesMeta,
  normaliseSeriesRelease,
  normaliseTagNames,
} from "./normalise.ts";
import type { FredSettings } from "./settings.ts";
import {
  FredApiError,
  fetchObservations,
  fetchReleaseSources,
  fetchSeriesMetadata,
  fetchSeriesRelease,
  fetchSeriesTags,
  observationStartFor,
} from "./upstream.ts";

type RefreshOutcome =
  | { status: "ok"; observations: number }
  | { status: "refused"; reason: string }
  | { status: "missing"; message: string };

/** A copyrighted series' owners: the sources of the release FRED publishes it in. */
async function ownersOf(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: FredSettings,
  seriesId: string,
): Promise<FredOwner[]> {
  const release = normaliseSeriesRelease((await fetchSeriesRelease(ctx, settings, seriesId)).json);
  return normaliseReleaseSources((await fetchReleaseSources(ctx, settings, release.id)).json);
}

export async function refreshSeries(
  ctx: Pick<HandlerContext, "upstreams" | "store">,
  settings: FredSettings,
  seriesId: string,
  now = new Date(),
): Promise<RefreshOutcome> {
  let metadata: Awaited<ReturnType<typeof fetchSeriesMetadata>>;
  try {
    metadata = await fetchSeriesMetadata(ctx, settings, seriesId);
  } catch (error) {
    // A refused id is recorded as missing, so the job is not failed again on every request for it.
    if (!(error instanceof FredApiError && error.refusesSeriesId)) throw error;
    const message = `FRED has no series ${seriesId} (FRED answered: "${error.fredMessage}").`;
    const summary = { status: "missing" as const, seriesId, message };
    await writeSeries(ctx.store, seriesId, summary, summary, { fetchedAt: now.toISOString() });
    return { status: "missing", message };
  }
  const meta = normaliseSeriesMeta(metadata.json);
  const tags = normaliseTagNames((await fetchSeriesTags(ctx, settings, seriesId)).json);
  const verdict = licenceVerdict(seriesId, meta.notes, tags);
  const stored = { recordedSample: metadata.recordedSample };

  if (!verdict.sellable) {
    const summary = {
      status: "refused" as const,
      seriesId,
      title: meta.title,
      copyright: verdict.copyright,
      reason: verdict.reason,
    };
    await writeSeries(ctx.store, seriesId, summary, summary, {
      fetchedAt: new Date().toISOString(),
      ...stored,
    });
    return { status: "refused", reason: verdict.reason };
  }

  const owners = verdict.copyright?.startsWith("copyrighted") ? await ownersOf(ctx, settings, seriesId) : [];
  const fetched = await fetchObservations(
    ctx,
    settings,
    seriesId,
    observationStartFor(now, settings.historyYears),
  );
  const observations = normaliseObservations(fetched.json);
  const common = {
    seriesId,
    title: meta.title,
    units: meta.units,
    frequency: meta.frequency,
    lastUpdated: meta.lastUpdated,
    copyright: verdict.copyright,
  };
  await writeSeries(
    ctx.store,
    seriesId,
    {
      status: "ok",
      ...common,
      seasonalAdjustment: meta.seasonalAdjustment,
      observations,
      source: fetched.url,
      citation: verdict.citation,
      owners,
    },
    {
      status: "ok",
      ...common,
      latestDate: latestObservation(observations)?.date ?? null,
      count: observations.length,
    },
    {
      fetchedAt: new Date().toISOString(),
      recordedSample: metadata.recordedSample || fetched.recordedSample,
    },
  );
  return { status: "ok", observations: observations.length };
}
