// The ECB FX warmer: one request for every currency, normalised into one cache document per currency
// (key = the currency code) plus an `_index` document listing them. All documents land in one transaction.
// It runs just after each publication (schedule.ts); once the cache holds rates it asks only for what changed
// since its last fetch (`updatedAfter`) and merges that in. A refresh that finds the day's rates not yet
// published fails, so the worker tries again (after 10, 20, 40 … minutes) for up to two hours.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import type { Store } from "../../store/store.ts";
import { type ExrSeries, normaliseExrCsv } from "./normalise.ts";
import { latestPublicationDay, nextEcbRefreshAt, refreshAt } from "./schedule.ts";
import { type ExrFetch, fetchDailyRates, fetchRatesUpdatedAfter, startPeriodFor } from "./upstream.ts";

export const ECB_FAMILY = "ecb";
export const ECB_FX_WARMER = "ecb.fx";
export const ECB_INDEX_KEY = "_index";

/** One currency's cache document. */
export interface CachedSeries extends ExrSeries {
  /** The ECB URL the rates were fetched from. */
  source: string;
}

interface EcbIndexEntry {
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

type EcbFxCounts = {
  currencies: number;
  observations: number;
  latestDate: string | null;
  /** Set on an incremental refresh: the instant asked for, and how many currencies had changes. */
  updatedAfter?: string;
  changedCurrencies?: number;
};

/** How long after a publication's refresh time a missing day still fails the run (and is retried). */
const AWAIT_PUBLICATION_MS = 2 * 3600_000;
/** `updatedAfter` reaches back this far before the last fetch, so clock skew never loses a change. */
const UPDATED_AFTER_OVERLAP_MS = 3600_000;

class EcbNotYetPublishedError extends Error {}

/** The cached series of every currency in the index, or undefined when one is missing. */
async function cachedSeries(store: Store, index: EcbIndex): Promise<CachedSeries[] | undefined> {
  const docs = await Promise.all(
    index.currencies.map((c) => store.cache.get<CachedSeries>(ECB_FAMILY, c.currency)),
  );
  return docs.every((d) => d !== undefined) ? docs.map((d) => d!.body) : undefined;
}

/** The cached series with the changed observations laid over them, trimmed to the window from `startPeriod`. */
function mergeSeries(cached: ExrSeries[], updates: ExrSeries[], startPeriod: string): ExrSeries[] {
  const byCurrency = new Map(cached.map((s) => [s.currency, s]));
  for (const update of updates) {
    const base = byCurrency.get(update.currency);
    const rates = new Map((base?.observations ?? []).map((o) => [o.date, o.rate]));
    for (const o of update.observations) rates.set(o.date, o.rate);
    byCurrency.set(update.currency, {
      currency: update.currency,
      title: update.title || base?.title || update.currency,
      observations: [...rates]
        .map(([date, rate]) => ({ date, rate }))
        .sort((a, b) => a.date.localeCompare(b.date)),
    });
  }
  return [...byCurrency.values()]
    .map((s) => ({
      currency: s.currency,
      title: s.title,
      observations: s.observations.filter((o) => o.date >= startPeriod),
    }))
    .filter((s) => s.observations.length > 0)
    .sort((a, b) => a.currency.localeCompare(b.currency));
}

export async function warmEcbFx(
  ctx: Pick<HandlerContext, "upstreams" | "store">,
  now = new Date(),
): Promise<EcbFxCounts> {
  const startPeriod = startPeriodFor(now);
  const previous = await ctx.store.cache.get<EcbIndex>(ECB_FAMILY, ECB_INDEX_KEY);
  const cached =
    previous && !previous.recordedSample ? await cachedSeries(ctx.store, previous.body) : undefined;
  let series: ExrSeries[];
  let fetched: ExrFetch | null;
  let incremental: Pick<EcbFxCounts, "updatedAfter" | "changedCurrencies"> = {};
  if (previous && cached) {
    const updatedAfter = new Date(Date.parse(previous.fetchedAt) - UPDATED_AFTER_OVERLAP_MS)
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z");
    fetched = await fetchRatesUpdatedAfter(ctx, startPeriod, updatedAfter);
    const updates = fetched ? normaliseExrCsv(fetched.csv) : [];
    series = mergeSeries(cached, updates, startPeriod);
    incremental = { updatedAfter, changedCurrencies: updates.length };
  } else {
    fetched = await fetchDailyRates(ctx, startPeriod);
    series = normaliseExrCsv(fetched.csv);
  }
  const source = fetched?.url ?? previous?.body.source ?? "";
  if (series.length === 0) throw new Error(`ECB answered no daily euro reference rates from ${source}`);
  const recordedSample = fetched?.recordedSample ?? false;
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
  // Recordings are fixed samples; only live rates are held to the publication calendar.
  const expected = latestPublicationDay(now);
  if (!recordedSample && (latestDate ?? "") < expected) {
    const waitedMs = now.getTime() - refreshAt(expected).getTime();
    if (waitedMs < AWAIT_PUBLICATION_MS) {
      throw new EcbNotYetPublishedError(
        `the ECB has not published the reference rates of ${expected} yet (latest ${latestDate}); the worker tries again shortly`,
      );
    }
  }
  const index: EcbIndex = { source, latestDate, currencies: entries };
  const common = { fetchedAt, recordedSample };

  await ctx.store.cache.putMany<CachedSeries | EcbIndex>(ECB_FAMILY, [
    ...series.map((s) => ({ key: s.currency, body: { ...s, source }, ...common })),
    { key: ECB_INDEX_KEY, body: index, ...common },
  ]);
  return {
    currencies: series.length,
    observations: series.reduce((sum, s) => sum + s.observations.length, 0),
    latestDate,
    ...incremental,
  };
}

export const ecbFxWarmer: Warmer = {
  name: ECB_FX_WARMER,
  // The expected period, for status: one publication per TARGET day.
  everyMs: 24 * 3600_000,
  // Just after each publication (about 16:00 CET on TARGET days), not every 24 hours from start.
  nextRunAt: (lastSuccess) => (lastSuccess ? nextEcbRefreshAt(lastSuccess) : new Date(0)),
  run: (ctx) => warmEcbFx(ctx),
};
