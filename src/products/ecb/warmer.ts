// The daily ECB FX warmer: one request for every currency, normalised into one cache document per currency
// (key = the currency code) plus an `_index` document listing them. All documents land in one transaction.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import { type ExrSeries, normaliseExrCsv } from "./normalise.ts";
import { fetchDailyRates, startPeriodFor } from "./upstream.ts";

export const ECB_FAMILY = "ecb";
export const ECB_FX_WARMER = "ecb.fx";
export const ECB_INDEX_KEY = "_index";

/** One currency's cache document. */
export interface CachedSeries extends ExrSeries {
  /** The ECB URL the rates were fetched from. */
  source: string;
}

export interface EcbIndexEntry {
  currency: string;
  title: string;
  latestDate: string;
  count: number;
}

/** The `_index` cache document. */
export interface EcbIndex {
  source: string;
  latestDate: string | null;
  currencies: EcbIndexEntry[];
}

export type EcbFxCounts = {
  currencies: number;
  observations: number;
  latestDate: string | null;
};

export async function warmEcbFx(
  ctx: Pick<HandlerContext, "upstreams" | "store">,
  now = new Date(),
): Promise<EcbFxCounts> {
  const fetched = await fetchDailyRates(ctx, startPeriodFor(now));
  const series = normaliseExrCsv(fetched.csv);
  if (series.length === 0) throw new Error(`ECB answered no daily euro reference rates from ${fetched.url}`);
  const fetchedAt = new Date().toISOString();

  const entries: EcbIndexEntry[] = series.map((s) => ({
    currency: s.currency,
    title: s.title,
    latestDate: s.observations.at(-1)?.date ?? "",
    count: s.observations.length,
  }));
  const latestDate = entries.reduce<string | null>(
    (max, e) => (max === null || e.latestDate > max ? e.latestDate : max),
    null,
  );
  const index: EcbIndex = { source: fetched.url, latestDate, currencies: entries };
  const common = { fetchedAt, recordedSample: fetched.recordedSample };

  await ctx.store.cache.putMany<CachedSeries | EcbIndex>(ECB_FAMILY, [
    ...series.map((s) => ({ key: s.currency, body: { ...s, source: fetched.url }, ...common })),
    { key: ECB_INDEX_KEY, body: index, ...common },
  ]);
  return {
    currencies: series.length,
    observations: series.reduce((sum, s) => sum + s.observations.length, 0),
    latestDate,
  };
}

export const ecbFxWarmer: Warmer = {
  name: ECB_FX_WARMER,
  // Daily: the ECB publishes around 16:00 CET on TARGET business days.
  everyMs: 24 * 3600_000,
  run: (ctx) => warmEcbFx(ctx),
};
