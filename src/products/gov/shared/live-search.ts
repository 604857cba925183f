// A search asked of the upstream inside the paid call (src/upstream/live-cache.ts): served from the cache
// while fresh, otherwise fetched live within a bounded wait and cached by the query's hash; the stale copy when
// the upstream fails; and, with no copy at all, a 503 that charges nothing. A fetch that outlives the wait
// still fills the cache.
import { type ErrorOutcome, type HandlerContext, upstreamUnavailable } from "../../../catalog/product.ts";
import { errorText } from "../../../json.ts";
import type { CachedDocument } from "../../../store/cache.ts";
import { liveCached } from "../../../upstream/live-cache.ts";
import { queryHash } from "./query.ts";

const LIVE_SEARCH_TIMEOUT_MS = 8000;
const UNAVAILABLE_RETRY_AFTER_SEC = 60;

export interface LiveSearch<T> {
  cacheFamily: string;
  /** The normalised query; its hash is the cache key. */
  query: string;
  /**
   * The upstream tells diacritics apart ("Ärztegesetz" is not "Arztegesetz" to RIS): two queries then share
   * a cache entry only when they are equal but for case and spacing.
   */
  keepDiacritics?: boolean;
  /** How long a cached answer is served without asking again. */
  freshMs: number;
  timeoutMs?: number;
  sku: string;
  /** For messages: "Austria's RIS". */
  upstream: string;
  fetch: () => Promise<{ body: T; recordedSample: boolean }>;
}

type LiveSearchResult<T> =
  | { ok: true; doc: CachedDocument<T>; from: "cache" | "live" | "stale" }
  | { ok: false; outcome: ErrorOutcome };

export async function liveSearch<T>(
  ctx: Pick<HandlerContext, "store">,
  search: LiveSearch<T>,
  now = new Date(),
): Promise<LiveSearchResult<T>> {
  const timeoutMs = search.timeoutMs ?? LIVE_SEARCH_TIMEOUT_MS;
  const result = await liveCached<T>(
    ctx,
    {
      cacheFamily: search.cacheFamily,
      key: queryHash(search.query, { keepDiacritics: search.keepDiacritics ?? false }),
      healthKey: search.sku,
      timeoutMs,
      fetch: async () => {
        const { body, recordedSample } = await search.fetch();
        const fetchedAt = new Date();
        return {
          body,
          fetchedAt: fetchedAt.toISOString(),
          expiresAt: new Date(fetchedAt.getTime() + search.freshMs).toISOString(),
          recordedSample,
        };
      },
    },
    now,
  );
  if (result.ok) return result;
  const why = result.timedOut
    ? `it did not answer within ${Math.round(timeoutMs / 1000)} s`
    : `it failed: ${errorText(result.error).slice(0, 200)}`;
  return { ok: false, outcome: unavailable(search.upstream, why) };
}

function unavailable(upstream: string, why: string): ErrorOutcome {
  return upstreamUnavailable(
    `${upstream} could not be searched (${why}); nothing was charged. Try again in a minute.`,
    { retryAfterSec: UNAVAILABLE_RETRY_AFTER_SEC },
  );
}
