// A title search of our own index (ch, de, eu): the `limit` parameter, the answer while the index is not built
// yet (its build is queued, 404 not_cached, nothing charged), and the search answer, dated by the index's last
// build and naming the upstream the index is read from.
import { z } from "zod";
import { type HandlerContext, notCached, ok } from "../../../catalog/product.ts";
import type { GovRouteInfo } from "../shared/gov-product.ts";
import { GovTitleIndex } from "../shared/title-index.ts";
import { searchAnswer } from "./answers.ts";

const INDEX_RETRY_AFTER_SEC = 60;
const SEARCH_LIMIT = 20;
const LIMIT_ERROR = { error: "limit must be a whole number from 1 to 100" };

/** For lookupQuery's `extra`. */
export const searchLimitParameter = {
  limit: z.coerce
    .number(LIMIT_ERROR)
    .int(LIMIT_ERROR)
    .min(1, LIMIT_ERROR)
    .max(100, LIMIT_ERROR)
    .optional()
    .describe("Most search hits to answer (1–100, default 20)"),
};

export interface IndexedSearch {
  info: GovRouteInfo;
  /** The index's collection, e.g. "leg-ch". */
  collection: string;
  /** The job that builds the index, and its key. */
  buildQueue: string;
  buildKey: string;
  /** Said while the index is being built: "Our index of … is being built from …; try again in about a minute." */
  building: string;
  /** The upstream URL the index is read from, as the answer's source. */
  source: (ctx: HandlerContext) => string;
}

export async function indexNotBuilt(ctx: HandlerContext, search: IndexedSearch) {
  await ctx.store.jobs.enqueue(search.buildQueue, search.buildKey, {});
  return notCached(search.building, INDEX_RETRY_AFTER_SEC);
}

/** The hits of `q` in the index, each served as `toItem` makes it. */
export async function indexSearchAnswer<Stored, Item = Stored>(
  ctx: HandlerContext,
  search: IndexedSearch,
  q: string,
  limit: number | undefined,
  toItem: (stored: Stored) => Item = (stored) => stored as unknown as Item,
) {
  const index = GovTitleIndex.of(ctx.store);
  const found = await index.search<Stored>(search.collection, q, limit ?? SEARCH_LIMIT);
  if (!found) return indexNotBuilt(ctx, search);
  const fetchedAt = (await index.lastUpdated(search.collection)) ?? new Date().toISOString();
  const result = { totalCount: found.totalCount, items: found.items.map(toItem), source: search.source(ctx) };
  return ok(searchAnswer(search.info, q, result, fetchedAt, ctx.upstreams.mode === "replay"));
}
