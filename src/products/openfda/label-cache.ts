// Label searches cached by normalised query through the shared live-fetch cache: served while fresh, searched
// live on openFDA otherwise, and served stale (with its true fetchedAt) when openFDA cannot answer.
import type { HandlerContext } from "../../catalog/product.ts";
import type { CachedDocument } from "../../store/cache.ts";
import { type LiveCacheRequest, liveCached, refreshOnce } from "../../upstream/live-cache.ts";
import type { LabelCard } from "./normalise.ts";
import { type LabelQuery, type SearchStep, upstreamSearches } from "./query.ts";
import { authMode, type OpenFdaSettings } from "./settings.ts";
import { OpenFdaUnavailable, searchLabels } from "./upstream.ts";

export const OPENFDA_FAMILY = "openfda";

type MatchedBy = "brand_name" | "generic_name" | "product_elements";

/** One cached search (key: the lower-case query). */
export interface CachedLabelSearch {
  query: string;
  /** The search that found the labels (or the last one tried, when none did). */
  step: SearchStep;
  source: string;
  auth: "anonymous" | "key";
  total: number;
  lastUpdated: string | null;
  disclaimer: string | null;
  labels: LabelCard[];
  /** openFDA refused the search as not supported (its HTTP 400): the query's fault, not openFDA's. */
  refused?: string;
}

export type LabelLookup =
  | { found: true; doc: CachedDocument<CachedLabelSearch>; from: "cache" | "live" | "stale" }
  | { found: false; error: OpenFdaUnavailable };

type Ctx = Pick<HandlerContext, "store" | "upstreams">;

export function cacheKey(query: Pick<LabelQuery, "key">): string {
  return `label:${query.key}`;
}

export function isFresh(doc: CachedDocument<unknown>, now = new Date()): boolean {
  return doc.expiresAt !== null && Date.parse(doc.expiresAt) > now.getTime();
}

function labelSearchRequest(
  ctx: Ctx,
  settings: OpenFdaSettings,
  query: Pick<LabelQuery, "key">,
): LiveCacheRequest<CachedLabelSearch> {
  return {
    cacheFamily: OPENFDA_FAMILY,
    key: cacheKey(query),
    isFresh,
    // Harmonised names first, then product elements, until one finds labels. A refused search is an answer
    // (openFDA is up; the query is bad), so it is stored and never counted as an upstream failure.
    fetch: async () => {
      let body: CachedLabelSearch | undefined;
      let recordedSample = false;
      for (const { step, search } of upstreamSearches(query)) {
        const fetched = await searchLabels(ctx, settings, search);
        recordedSample ||= fetched.recordedSample;
        body = {
          query: query.key,
          step,
          source: fetched.url,
          auth: authMode(settings),
          total: fetched.page?.total ?? 0,
          lastUpdated: fetched.page?.lastUpdated ?? null,
          disclaimer: fetched.page?.disclaimer ?? null,
          labels: fetched.page?.labels ?? [],
          ...(fetched.refused !== null ? { refused: fetched.refused } : {}),
        };
        if (body.labels.length > 0 || body.refused !== undefined) break;
      }
      const fetchedAt = new Date().toISOString();
      return {
        body: body as CachedLabelSearch,
        fetchedAt,
        expiresAt: new Date(Date.parse(fetchedAt) + settings.cacheTtlMs).toISOString(),
        recordedSample,
      };
    },
  };
}

/** Searches openFDA now (sharing a search of the same query already running), stores the answer and returns it. */
export function refreshLabelSearch(
  ctx: Ctx,
  settings: OpenFdaSettings,
  query: Pick<LabelQuery, "key">,
): Promise<CachedDocument<CachedLabelSearch>> {
  return refreshOnce(ctx, labelSearchRequest(ctx, settings, query), undefined);
}

/** The cached search while fresh; otherwise a live one within the bounded wait; otherwise the stale copy. */
export async function lookupLabels(
  ctx: Ctx,
  settings: OpenFdaSettings,
  query: Pick<LabelQuery, "key">,
  now = new Date(),
): Promise<LabelLookup> {
  const result = await liveCached(ctx, labelSearchRequest(ctx, settings, query), now);
  if (result.ok) return { found: true, doc: result.doc, from: result.from };
  if (result.error instanceof OpenFdaUnavailable) return { found: false, error: result.error };
  if (result.timedOut)
    return { found: false, error: new OpenFdaUnavailable("openFDA did not answer in time") };
  throw result.error;
}

/**
 * The best label for the query: a brand name equal to it, else a generic name equal to it, else the newest
 * label the search found. Says which name field matched, and whether it matched exactly.
 */
export function bestLabel(
  search: CachedLabelSearch,
): { label: LabelCard; matchedBy: MatchedBy; exactName: boolean } | undefined {
  const q = search.query;
  const equal = (names: string[]) => names.some((n) => n.toLowerCase() === q);
  const byBrand = search.labels.find((l) => equal(l.brandNames));
  if (byBrand) return { label: byBrand, matchedBy: "brand_name", exactName: true };
  const byGeneric = search.labels.find((l) => equal(l.genericNames));
  if (byGeneric) return { label: byGeneric, matchedBy: "generic_name", exactName: true };
  const first = search.labels[0];
  if (!first) return undefined;
  if (search.step === "product_elements")
    return { label: first, matchedBy: "product_elements", exactName: false };
  const inBrand = first.brandNames.some((n) => n.toLowerCase().includes(q));
  return { label: first, matchedBy: inBrand ? "brand_name" : "generic_name", exactName: false };
}
