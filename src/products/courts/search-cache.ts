// Searches cached by normalised query: served while fresh, refreshed live from CourtListener otherwise,
// and served stale (with its true fetchedAt) when CourtListener cannot answer.
import type { HandlerContext } from "../../catalog/product.ts";
import type { CachedDocument } from "../../store/cache.ts";
import { recordExchange } from "./health.ts";
import type { CourtHit } from "./normalise.ts";
import { type CourtsQuery, type SearchedAs, searchedAs, upstreamQueryFor } from "./query.ts";
import { authMode, type CourtsSettings } from "./settings.ts";
import { CourtListenerUnavailable, type SearchMode, searchOpinions } from "./upstream.ts";

export const COURTS_FAMILY = "courts";

/** One cached search (key: the lower-case normalised query). */
export interface CachedSearch {
  query: string;
  searchedAs: SearchedAs;
  upstreamQuery: string;
  source: string;
  auth: "anonymous" | "token";
  totalCount: number;
  hits: CourtHit[];
}

type SearchLookup =
  | { found: true; doc: CachedDocument<CachedSearch>; from: "cache" | "live" | "stale" }
  | { found: false; error: CourtListenerUnavailable };

type Ctx = Pick<HandlerContext, "store" | "upstreams">;

export function isFresh(doc: CachedDocument<unknown>, now = new Date()): boolean {
  return doc.expiresAt !== null && Date.parse(doc.expiresAt) > now.getTime();
}

/**
 * Asks CourtListener now (the client refuses at once while it is paused or the windows are spent), stores
 * the answer and returns it.
 */
export async function refreshSearch(
  ctx: Ctx,
  settings: CourtsSettings,
  query: Pick<CourtsQuery, "key" | "words">,
  mode: SearchMode = {},
): Promise<CachedDocument<CachedSearch>> {
  const upstreamQuery = upstreamQueryFor(query);
  let fetched: Awaited<ReturnType<typeof searchOpinions>>;
  try {
    fetched = await searchOpinions(ctx, settings, upstreamQuery, mode);
  } catch (error) {
    if (!(error instanceof CourtListenerUnavailable)) throw error;
    // Nothing was sent when the budget refused: CourtListener's health is unchanged.
    if (!error.budgetSpent) {
      await recordExchange(ctx.store, { ok: false, error: error.message, status: error.status });
    }
    throw error;
  }
  await recordExchange(ctx.store, { ok: true });
  const fetchedAt = new Date().toISOString();
  const body: CachedSearch = {
    query: query.key,
    searchedAs: searchedAs(query),
    upstreamQuery,
    source: fetched.url,
    auth: authMode(settings),
    totalCount: fetched.page.totalCount,
    hits: fetched.page.hits,
  };
  const doc = {
    body,
    fetchedAt,
    expiresAt: new Date(Date.parse(fetchedAt) + settings.cacheTtlMs).toISOString(),
    etag: null,
    lastModified: null,
    recordedSample: fetched.recordedSample,
  };
  await ctx.store.cache.put(COURTS_FAMILY, query.key, doc);
  return doc;
}

/** Searches of one query running in this process, per store: concurrent buyers of it share one request. */
const inFlight = new WeakMap<object, Map<string, Promise<CachedDocument<CachedSearch>>>>();

function refreshOnce(
  ctx: Ctx,
  settings: CourtsSettings,
  query: Pick<CourtsQuery, "key" | "words">,
): Promise<CachedDocument<CachedSearch>> {
  let running = inFlight.get(ctx.store);
  if (!running) {
    running = new Map();
    inFlight.set(ctx.store, running);
  }
  const existing = running.get(query.key);
  if (existing) return existing;
  const started = refreshSearch(ctx, settings, query).finally(() => running.delete(query.key));
  running.set(query.key, started);
  return started;
}

/** The cached search while fresh; otherwise a live one; otherwise the stale copy, if there is one. */
export async function lookupSearch(
  ctx: Ctx,
  settings: CourtsSettings,
  query: Pick<CourtsQuery, "key" | "words">,
  now = new Date(),
): Promise<SearchLookup> {
  const cached = await ctx.store.cache.get<CachedSearch>(COURTS_FAMILY, query.key);
  if (cached && isFresh(cached, now)) return { found: true, doc: cached, from: "cache" };
  try {
    return { found: true, doc: await refreshOnce(ctx, settings, query), from: "live" };
  } catch (error) {
    if (!(error instanceof CourtListenerUnavailable)) throw error;
    if (cached) return { found: true, doc: cached, from: "stale" };
    return { found: false, error };
  }
}
