// One company-register route per country, built the same way for all: `q` (a name search asked of the register
// live within the paid call, bounded at 8 s, cached by the query's hash) or an id (one company, served from the
// cache or queued: 404 not charged, fetched within about a minute by the country's job).
import { setTimeout as sleep } from "node:timers/promises";
import type { z } from "zod";
import {
  type ErrorOutcome,
  type HandlerContext,
  ok,
  product,
  type RequestInput,
} from "../../../catalog/product.ts";
import { errorOutcome } from "../../../errors.ts";
import { withFetchHealth } from "../../../upstream/live-cache.ts";
import { type GovRouteInfo, govProduct, govSku } from "../shared/gov-product.ts";
import { cachedItemOrQueue, storeItem, storeMissing } from "../shared/item-cache.ts";
import { liveSearch } from "../shared/live-search.ts";
import type { IdParse } from "../shared/query.ts";
import { type CompanySearch, type StoredCompany, searchAnswer, singleAnswer } from "./answers.ts";

/** A register's answer to a name search is served this long before it is asked again. */
const SEARCH_FRESH_MS = 12 * 3600_000;
/** A stored company older than this is still served, and a refresh is queued. */
const COMPANY_REFRESH_MS = 24 * 3600_000;
/** How long a free sample of one id may take to fetch inline. */
const SAMPLE_FETCH_MS = 8000;

export type Ctx = Pick<HandlerContext, "upstreams" | "store" | "config">;

export type CompanyLookup<Body> = { found: true; company: Body; recordedSample: boolean } | { found: false };

interface CompanyRegister<Q, Body extends { apiUrl: string }, Item> {
  info: GovRouteInfo;
  /** The upstream's home or documentation, for the catalog's source entry. */
  upstreamUrl: string;
  /** Default /v1/gov/<cc>/companies. */
  path?: string;
  price?: string;
  summary: string;
  description: string;
  query: z.ZodType<Q>;
  aliases?: Record<string, string>;
  sample: Record<string, string>;
  answer: z.ZodType;
  /** The validated query as a name search or one id. */
  pick: (query: Q) => { q: string } | { id: string };
  /** Re-checks a queued job's id (payloads come back from the store). */
  parseId: (raw: string) => IdParse<string>;
  /** For messages: "Company 27082440 in ARES". */
  what: (id: string) => string;
  /** Fetches one company; `found: false` when the register says it does not exist. */
  lookup: (ctx: Ctx, id: string) => Promise<CompanyLookup<Body>>;
  /** Asks the register for names; absent on id-only routes. */
  search?: (ctx: Ctx, q: string) => Promise<{ search: CompanySearch<Item>; recordedSample: boolean }>;
  /** Refuses before payment what the route cannot serve in this configuration (a missing key). */
  check?: (input: RequestInput<Q, undefined>, ctx: HandlerContext) => Promise<ErrorOutcome | undefined>;
}

/**
 * The register's own "your query is too broad": a 400 naming the parameter, never charged. The search
 * itself succeeded (the register answered), so it is not counted as the register failing.
 */
function queryRefused(
  info: GovRouteInfo,
  refused: NonNullable<CompanySearch<unknown>["refused"]>,
): ErrorOutcome {
  return errorOutcome("query_too_broad", `${info.upstream}: ${refused.message} Nothing was charged.`, {
    parameter: refused.parameter,
  });
}

export function companyQueue(info: GovRouteInfo): string {
  return `${govSku(info.cc, info.family)}.fetch`;
}

export function cacheFamilyOf(info: GovRouteInfo): string {
  return `gov-${info.family === "accounts" ? "acc" : "co"}-${info.cc}`;
}

export function companyRoute<Q, Body extends StoredCompany | { apiUrl: string }, Item>(
  register: CompanyRegister<Q, Body, Item>,
) {
  const { info } = register;
  const sku = govSku(info.cc, info.family);
  const cacheFamily = cacheFamilyOf(info);
  const queue = companyQueue(info);
  const route = govProduct(
    info,
    product<Q, undefined, unknown>({
      sku,
      method: "GET",
      path: register.path ?? `/v1/gov/${info.cc}/companies`,
      summary: register.summary,
      description: register.description,
      status: "live",
      price: register.price ?? "0.005",
      query: register.query,
      ...(register.aliases ? { aliases: register.aliases } : {}),
      answer: register.answer,
      sample: register.sample,
      source: { name: info.upstream, url: register.upstreamUrl, licence: info.licence },
      ...(register.check ? { check: register.check } : {}),

      async handle({ query, payment }, ctx) {
        const asked = register.pick(query);
        if ("id" in asked) {
          const item = {
            cacheFamily,
            key: asked.id,
            queue,
            payload: { id: asked.id },
            what: register.what(asked.id),
            refreshAfterMs: COMPANY_REFRESH_MS,
          };
          let lookup = await cachedItemOrQueue<Body>(ctx, item);
          // The free sample (no payment) is one fixed id: fetched inline, bounded, so that it answers on first ask.
          if (!lookup.found && payment === undefined && lookup.outcome.body.error === "not_cached") {
            const timer = new AbortController();
            const fetched = await Promise.race([
              fetchInto(ctx, asked.id).then(() => true),
              sleep(SAMPLE_FETCH_MS, false, { signal: timer.signal }),
            ])
              .catch(() => false)
              .finally(() => timer.abort());
            // Read again even when this fetch failed: the worker's job for the same id may have filled it.
            if (fetched || (await ctx.store.cache.get(cacheFamily, asked.id)))
              lookup = await cachedItemOrQueue<Body>(ctx, item);
          }
          return lookup.found ? ok(singleAnswer(info, lookup.doc as never)) : lookup.outcome;
        }
        const search = register.search;
        if (!search) throw new Error(`${sku}: this route has no name search`);
        const result = await liveSearch<CompanySearch<Item>>(ctx, {
          cacheFamily: `${cacheFamily}-search`,
          query: asked.q,
          freshMs: SEARCH_FRESH_MS,
          sku,
          upstream: info.upstream,
          fetch: async () => {
            const found = await search(ctx, asked.q);
            return { body: found.search, recordedSample: found.recordedSample };
          },
        });
        if (!result.ok) return result.outcome;
        const refused = result.doc.body.refused;
        return refused ? queryRefused(info, refused) : ok(searchAnswer(info, asked.q, result.doc));
      },
    }),
  );

  async function fetchInto(ctx: Ctx, id: string): Promise<void> {
    await withFetchHealth(ctx, sku, async () => {
      const found = await register.lookup(ctx, id);
      if (found.found) await storeItem(ctx, cacheFamily, id, found.company, found.recordedSample);
      else await storeMissing(ctx, cacheFamily, id);
    });
  }

  async function fetchJob(payload: unknown, ctx: HandlerContext): Promise<void> {
    const raw = (payload as { id?: unknown } | null)?.id;
    const parsed = typeof raw === "string" ? register.parseId(raw) : undefined;
    if (!parsed || "error" in parsed) {
      throw new Error(`${queue} needs a company id, got ${JSON.stringify(raw)}`);
    }
    await fetchInto(ctx, parsed.id);
  }

  return { route, jobs: { [queue]: fetchJob } };
}
