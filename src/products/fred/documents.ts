// What the FRED family keeps in the cache (family "fred"): per series, a full document (`series/<ID>`) and a
// small summary (`summary/<ID>`) for pre-payment checks and the coverage list, written together.
import type { CachedDocument, PutDocument } from "../../store/cache.ts";
import type { Store } from "../../store/store.ts";
import type { FredObservation, FredOwner } from "./normalise.ts";

const FRED_FAMILY = "fred";
export const SERIES_QUEUE = "fred-series";

const seriesKey = (id: string) => `series/${id}`;
const summaryKey = (id: string) => `summary/${id}`;
const SUMMARY_PREFIX = "summary/";

interface SeriesDocument {
  status: "ok";
  seriesId: string;
  title: string;
  units: string;
  frequency: string;
  seasonalAdjustment: string;
  lastUpdated: string;
  observations: FredObservation[];
  /** The observations URL, without the API key. */
  source: string;
  copyright: string | null;
  citation: string | null;
  /** The owners FRED names for a copyrighted series (its release's sources); absent in older documents. */
  owners?: FredOwner[];
}

export type SeriesSummary =
  | {
      status: "ok";
      seriesId: string;
      title: string;
      units: string;
      frequency: string;
      lastUpdated: string;
      latestDate: string | null;
      count: number;
      copyright: string | null;
    }
  | { status: "refused"; seriesId: string; title: string; copyright: string | null; reason: string }
  | { status: "missing"; seriesId: string; message: string };

type NotSold = Exclude<SeriesSummary, { status: "ok" }>;

/**
 * Writes a series' full document and its summary in one transaction. A refused or unknown series stores its
 * summary under both keys, so an earlier sellable copy is never served again.
 */
export async function writeSeries(
  store: Store,
  seriesId: string,
  full: SeriesDocument | NotSold,
  summary: SeriesSummary,
  meta: Omit<PutDocument<unknown>, "body">,
): Promise<void> {
  await store.cache.putMany<SeriesDocument | SeriesSummary>(FRED_FAMILY, [
    { key: seriesKey(seriesId), body: full, ...meta },
    { key: summaryKey(seriesId), body: summary, ...meta },
  ]);
}

export function readSeries(
  store: Store,
  id: string,
): Promise<CachedDocument<SeriesDocument | NotSold> | undefined> {
  return store.cache.get<SeriesDocument | NotSold>(FRED_FAMILY, seriesKey(id));
}

/** For checks on every request: read at most `maxAgeMs` ago by this process. */
export function readSummaryRecent(
  store: Store,
  id: string,
  maxAgeMs: number,
): Promise<CachedDocument<SeriesSummary> | undefined> {
  return store.cache.getRecent<SeriesSummary>(FRED_FAMILY, summaryKey(id), maxAgeMs);
}

export async function readAllSummaries(store: Store): Promise<Array<CachedDocument<SeriesSummary>>> {
  const keys = (await store.cache.keys(FRED_FAMILY)).filter((k) => k.startsWith(SUMMARY_PREFIX));
  const docs = await Promise.all(keys.map((k) => store.cache.get<SeriesSummary>(FRED_FAMILY, k)));
  return docs.filter((d): d is CachedDocument<SeriesSummary> => d !== undefined);
}
