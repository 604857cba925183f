// One legislation route per country, built the same way for all: an id (one act, served from the cache or
// queued: 404 not_cached, not charged, fetched within about a minute by the country's act job) or `q` (a title
// search, asked of the upstream inside the paid call or of our index). What differs by country is options.
import type { z } from "zod";
import {
  type ErrorOutcome,
  type HandlerContext,
  type Outcome,
  ok,
  product,
  type SourceInfo,
} from "../../../catalog/product.ts";
import type { CachedDocument } from "../../../store/cache.ts";
import { type GovRouteInfo, govProduct, govSku } from "../shared/gov-product.ts";
import { cachedItemOrQueue } from "../shared/item-cache.ts";
import { actAnswer, type StoredAct } from "./answers.ts";

/** Acts are amended and repealed: a cached act older than a week is served and refreshed. */
const ACT_REFRESH_MS = 7 * 24 * 3600_000;

interface LegislationRoute<Q, Stored> {
  info: GovRouteInfo;
  /** Default /v1/gov/<cc>/legislation. */
  path?: string;
  summary: string;
  description: string;
  query: z.ZodType<Q>;
  answer: z.ZodType;
  sample: Record<string, string>;
  /** The catalog's source entry; its licence is the route's. */
  source: Omit<SourceInfo, "licence">;
  act: {
    cacheFamily: string;
    /** The country's act job. */
    queue: string;
    /** The query parameter naming one act, also the job payload's field (default "id"). */
    parameter?: string;
    /** The cache key of an id as asked (default: the id). */
    key?: (id: string) => string;
    /** For messages: "Act 32016R0679 of EUR-Lex". */
    what: (id: string) => string;
    /** The cached act as answered (default: the act, as stored). */
    answer?: (doc: CachedDocument<Stored>, query: Q) => Outcome<unknown>;
  };
  /** Refuses before the act or the search what the route knows it cannot serve (an id not in its index). */
  check?: (query: Q, ctx: HandlerContext) => Promise<ErrorOutcome | undefined>;
  /** The title search of `q`; absent on id-only routes. */
  search?: (ctx: HandlerContext, q: string, query: Q) => Promise<Outcome<unknown>>;
}

export function legislationRoute<Q, Stored>(route: LegislationRoute<Q, Stored>) {
  const { info, act } = route;
  const sku = govSku(info.cc, info.family);
  const parameter = act.parameter ?? "id";
  return govProduct(
    info,
    product<Q, undefined, unknown>({
      sku,
      method: "GET",
      path: route.path ?? `/v1/gov/${info.cc}/legislation`,
      summary: route.summary,
      description: route.description,
      status: "live",
      price: "0.005",
      query: route.query,
      answer: route.answer,
      sample: route.sample,
      source: {
        name: route.source.name,
        url: route.source.url,
        licence: info.licence,
        ...(route.source.notice === undefined ? {} : { notice: route.source.notice }),
      },
      async handle({ query }, ctx) {
        const refused = await route.check?.(query, ctx);
        if (refused) return refused;
        const id = (query as Record<string, unknown>)[parameter];
        if (typeof id === "string" && id) {
          const key = act.key ? act.key(id) : id;
          const item = await cachedItemOrQueue<Stored>(ctx, {
            cacheFamily: act.cacheFamily,
            key,
            queue: act.queue,
            payload: { [parameter]: key },
            what: act.what(id),
            refreshAfterMs: ACT_REFRESH_MS,
          });
          if (!item.found) return item.outcome;
          return act.answer
            ? act.answer(item.doc, query)
            : ok(actAnswer(info, item.doc as CachedDocument<StoredAct<unknown>>));
        }
        if (!route.search) throw new Error(`${sku}: this route has no title search`);
        return route.search(ctx, (query as { q?: string }).q as string, query);
      },
    }),
  );
}
