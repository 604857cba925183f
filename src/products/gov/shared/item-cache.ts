// One item (an act, a dataset, a company) by id: served from the cache, or queued for fetching with a 404
// that charges nothing and says when to come back (buyers are told: about a minute).
import { type ErrorOutcome, type HandlerContext, notCached, notFound } from "../../../catalog/product.ts";
import type { CachedDocument } from "../../../store/cache.ts";

const ITEM_RETRY_AFTER_SEC = 60;
/** How long the upstream's word that an item does not exist is trusted before asking again. */
const MISSING_RECHECK_MS = 24 * 3600_000;

/** Stored in place of an item the upstream said does not exist. */
interface MissingItem {
  missing: true;
  checkedAt: string;
}

function isMissing(body: unknown): body is MissingItem {
  return typeof body === "object" && body !== null && (body as MissingItem).missing === true;
}

interface ItemLookup {
  cacheFamily: string;
  key: string;
  /** Job queue that fetches the item; the job is deduplicated by `key`. */
  queue: string;
  payload: unknown;
  /** For messages: "Act 10001622 of Austria's RIS". */
  what: string;
  retryAfterSec?: number;
  /** A stored item older than this is still served, and a refresh is queued. */
  refreshAfterMs?: number;
}

type ItemResult<T> = { found: true; doc: CachedDocument<T> } | { found: false; outcome: ErrorOutcome };

export async function cachedItemOrQueue<T>(
  ctx: Pick<HandlerContext, "store">,
  lookup: ItemLookup,
  now = new Date(),
): Promise<ItemResult<T>> {
  const doc = await ctx.store.cache.get<T | MissingItem>(lookup.cacheFamily, lookup.key);
  const retryAfterSec = lookup.retryAfterSec ?? ITEM_RETRY_AFTER_SEC;
  if (doc && isMissing(doc.body)) {
    if (now.getTime() - Date.parse(doc.body.checkedAt) < MISSING_RECHECK_MS) {
      return {
        found: false,
        outcome: notFound(`${lookup.what} does not exist upstream (checked ${doc.body.checkedAt}).`, {
          id: lookup.key,
          checkedAt: doc.body.checkedAt,
        }),
      };
    }
  } else if (doc) {
    const age = now.getTime() - Date.parse(doc.fetchedAt);
    if (lookup.refreshAfterMs !== undefined && age > lookup.refreshAfterMs) {
      await ctx.store.jobs.enqueue(lookup.queue, lookup.key, lookup.payload);
    }
    return { found: true, doc: doc as CachedDocument<T> };
  }
  await ctx.store.jobs.enqueue(lookup.queue, lookup.key, lookup.payload);
  return {
    found: false,
    outcome: notCached(
      `${lookup.what} is not cached yet; it has been queued for fetching. Try again in about ${retryAfterSec} seconds.`,
      retryAfterSec,
      { id: lookup.key },
    ),
  };
}

export async function storeItem<T>(
  ctx: Pick<HandlerContext, "store">,
  cacheFamily: string,
  key: string,
  body: T,
  recordedSample: boolean,
  now = new Date(),
): Promise<void> {
  await ctx.store.cache.put(cacheFamily, key, { body, fetchedAt: now.toISOString(), recordedSample });
}

export async function storeMissing(
  ctx: Pick<HandlerContext, "store">,
  cacheFamily: string,
  key: string,
  now = new Date(),
): Promise<void> {
  const checkedAt = now.toISOString();
  await ctx.store.cache.put<MissingItem>(cacheFamily, key, {
    body: { missing: true, checkedAt },
    fetchedAt: checkedAt,
  });
}
