// A search asked of the upstream inside the paid call: served from the cache while fresh, otherwise fetched
// live within a bounded wait and cached by the query's hash; the stale copy when the upstream fails; and,
// with no copy at all, a 503 that charges nothing. A fetch that outlives the wait still fills the cache.
import { setTimeout as sleep } from "node:timers/promises";
import type { ErrorOutcome, HandlerContext } from "../../../catalog/product.ts";
import type { CachedDocument } from "../../../store/cache.ts";
import { recordGovFetch } from "./fetch-health.ts";
import { queryHash } from "./query.ts";

export const LIVE_SEARCH_TIMEOUT_MS = 8000;
export const UNAVAILABLE_RETRY_AFTER_SEC = 60;

export interface LiveSearch<T> {
  cacheFamily: string;
  /** The normalised query; its hash is the cache key. */
  query: string;
  /** How long a cached answer is served without asking again. */
  freshMs: number;
  timeoutMs?: number;
  sku: string;
  /** For messages: "Austria's RIS". */
  upstream: string;
  fetch: () => Promise<{ body: T; recordedSample: boolean }>;
}

export type LiveSearchResult<T> =
  | { ok: true; doc: CachedDocument<T>; from: "cache" | "live" | "stale" }
  | { ok: false; outcome: ErrorOutcome };

/** Searches running in this process, per store: concurrent buyers of one query share one request. */
const inFlight = new WeakMap<object, Map<string, Promise<CachedDocument<unknown>>>>();

async function fetchAndStore<T>(
  ctx: Pick<HandlerContext, "store">,
  search: LiveSearch<T>,
  key: string,
): Promise<CachedDocument<T>> {
  try {
    const { body, recordedSample } = await search.fetch();
    const fetchedAt = new Date().toISOString();
    const doc: CachedDocument<T> = {
      body,
      fetchedAt,
      expiresAt: new Date(Date.parse(fetchedAt) + search.freshMs).toISOString(),
      etag: null,
      lastModified: null,
      recordedSample,
    };
    await ctx.store.cache.put(search.cacheFamily, key, doc);
    await recordGovFetch(ctx.store, search.sku, { ok: true });
    return doc;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await recordGovFetch(ctx.store, search.sku, { ok: false, error: message }).catch(() => undefined);
    throw error;
  }
}

function fetchOnce<T>(
  ctx: Pick<HandlerContext, "store">,
  search: LiveSearch<T>,
  key: string,
): Promise<CachedDocument<T>> {
  let running = inFlight.get(ctx.store);
  if (!running) {
    running = new Map();
    inFlight.set(ctx.store, running);
  }
  const memo = `${search.cacheFamily}\u0000${key}`;
  const existing = running.get(memo);
  if (existing) return existing as Promise<CachedDocument<T>>;
  const started = fetchAndStore(ctx, search, key).finally(() => running.delete(memo));
  running.set(memo, started);
  return started;
}

export async function liveSearch<T>(
  ctx: Pick<HandlerContext, "store">,
  search: LiveSearch<T>,
  now = new Date(),
): Promise<LiveSearchResult<T>> {
  const key = queryHash(search.query);
  const cached = await ctx.store.cache.get<T>(search.cacheFamily, key);
  if (cached?.expiresAt && Date.parse(cached.expiresAt) > now.getTime()) {
    return { ok: true, doc: cached, from: "cache" };
  }
  const timeoutMs = search.timeoutMs ?? LIVE_SEARCH_TIMEOUT_MS;
  const running = fetchOnce(ctx, search, key);
  const timer = new AbortController();
  try {
    const outcome = await Promise.race([
      running.then((doc) => ({ doc })),
      sleep(timeoutMs, { timedOut: true as const }, { signal: timer.signal }).catch(() => ({
        timedOut: true as const,
      })),
    ]);
    if ("doc" in outcome) return { ok: true, doc: outcome.doc, from: "live" };
  } catch (error) {
    if (cached) return { ok: true, doc: cached, from: "stale" };
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, outcome: unavailable(search.upstream, `it failed: ${reason.slice(0, 200)}`) };
  } finally {
    timer.abort();
    running.catch(() => undefined);
  }
  if (cached) return { ok: true, doc: cached, from: "stale" };
  return {
    ok: false,
    outcome: unavailable(search.upstream, `it did not answer within ${Math.round(timeoutMs / 1000)} s`),
  };
}

function unavailable(upstream: string, why: string): ErrorOutcome {
  return {
    status: 503,
    body: {
      error: "upstream_unavailable",
      message: `${upstream} could not be searched (${why}); nothing was charged. Try again in a minute.`,
      charged: false,
      retryAfterSec: UNAVAILABLE_RETRY_AFTER_SEC,
    },
  };
}
