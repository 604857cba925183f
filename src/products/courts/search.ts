// GET /v1/courts/search: US court opinions matching a query, from CourtListener. A query not yet cached
// is searched live inside the paid call; if CourtListener cannot answer, nothing is charged.
import { z } from "zod";
import { type ErrorOutcome, ok, product, upstreamUnavailable } from "../../catalog/product.ts";
import type { CachedDocument } from "../../store/cache.ts";
import { type CourtsSearchInput, CourtsSearchQuery, describeSearch, PHRASE_MAX_WORDS } from "./query.ts";
import { type CachedSearch, lookupSearch } from "./search-cache.ts";
import type { CourtsSettings } from "./settings.ts";
import {
  COURTLISTENER_ATTRIBUTION,
  COURTLISTENER_SOURCE,
  type CourtListenerUnavailable,
} from "./upstream.ts";

const CourtHitSchema = z.object({
  caseName: z.string().describe("Case name, e.g. Mapp v. Ohio"),
  court: z.string().describe("Full name of the court"),
  dateFiled: z.string().describe("Date the opinion was filed, YYYY-MM-DD (empty when unknown)"),
  docketNumber: z.string().describe("Docket number as the court gives it (empty when unknown)"),
  absoluteUrl: z.url().or(z.literal("")).describe("The opinion's page on CourtListener"),
  courtId: z.string().describe("CourtListener court id, e.g. scotus, ca9"),
  clusterId: z.number().int().positive().describe("CourtListener opinion cluster id"),
});

export const CourtsSearchAnswer = z.object({
  query: z.string().describe("The query as searched: trimmed, spaces collapsed"),
  hits: z.array(CourtHitSchema).describe("Best matches first: the first page of up to 20 opinion clusters"),
  count: z.number().int().nonnegative().describe("Hits in this answer"),
  totalCount: z.number().int().nonnegative().describe("All opinions CourtListener matched"),
  fetchedAt: z.iso.datetime().describe("When CourtListener was searched"),
  source: z.url().describe("The CourtListener search URL the hits came from"),
  auth: z
    .enum(["anonymous", "token"])
    .describe("How this service accessed CourtListener: anonymous, or with an API token"),
  match: z.boolean().describe("True when there are hits"),
  message: z.string().optional().describe("Present when there are no hits"),
  notice: z.string().describe("CourtListener attribution; says so when the hits are a recorded sample"),
});

type CourtsSearchAnswerBody = z.infer<typeof CourtsSearchAnswer>;

/** Seconds a buyer should wait after CourtListener failed without saying how long. */
const UNAVAILABLE_RETRY_SEC = 60;

function searchNotice(recordedSample: boolean): string {
  const attribution = `${COURTLISTENER_ATTRIBUTION}. Court opinions are public records; this is not legal advice.`;
  if (!recordedSample) return attribution;
  return (
    "RECORDED SAMPLE, NOT LIVE DATA: these hits come from a recorded sample of CourtListener's documented " +
    `response shape (UPSTREAMS=replay) and are placeholders, not CourtListener's results. ${attribution}`
  );
}

function searchAnswer(
  query: CourtsSearchInput["q"],
  doc: CachedDocument<CachedSearch>,
): CourtsSearchAnswerBody {
  const { body } = doc;
  const match = body.hits.length > 0;
  return {
    query: query.text,
    hits: body.hits,
    count: body.hits.length,
    totalCount: body.totalCount,
    fetchedAt: doc.fetchedAt,
    source: body.source,
    auth: body.auth,
    match,
    ...(match
      ? {}
      : {
          message: `No US court opinion on CourtListener matches ${describeSearch(query)}. Try fewer or other words.`,
        }),
    notice: searchNotice(doc.recordedSample),
  };
}

function unavailable(error: CourtListenerUnavailable): ErrorOutcome {
  const retryAfterSec = error.retryAfterSec ?? UNAVAILABLE_RETRY_SEC;
  const why =
    error.status === 429
      ? "CourtListener is limiting this service's searches right now"
      : error.budgetSpent
        ? /paused/.test(error.message)
          ? "CourtListener asked this service to pause its searches"
          : "This service's CourtListener search budget (its per-minute, hour and day limits) is spent for now"
        : "CourtListener did not answer the search";
  return upstreamUnavailable(
    `${why}, and this query is not cached yet; nothing was charged. Try again in about ${retryAfterSec} seconds.`,
    { retryAfterSec },
  );
}

export function courtsSearch(settings: CourtsSettings) {
  return product({
    sku: "courts.search",
    method: "GET",
    path: "/v1/courts/search",
    summary: "Search US court opinions (CourtListener): case name, court, date filed, docket, link",
    description:
      "Searches US case law on CourtListener (Free Law Project) and returns the best-matching opinion " +
      "clusters, up to 20, with case name, court, date filed, docket number, CourtListener link and ids, " +
      `plus the total number of matches. Queries of up to ${PHRASE_MAX_WORDS} words match as one exact ` +
      "phrase; longer ones require every word. Case and extra spaces do not matter. Answers are cached by " +
      "query; a query not yet cached is searched live. No hits is a 200 with match:false (charged); if " +
      "CourtListener cannot be reached and nothing is cached, the answer is 503 and nothing is charged.",
    status: "live",
    tags: ["courts", "case-law", "us", "courtlistener"],
    price: "0.005",
    query: CourtsSearchQuery,
    answer: CourtsSearchAnswer,
    sample: { q: "fourth amendment" },
    source: COURTLISTENER_SOURCE,

    async handle({ query }, ctx) {
      const lookup = await lookupSearch(ctx, settings, query.q);
      if (!lookup.found) {
        ctx.log.warn({ query: query.q.key, err: lookup.error.message }, "courtlistener search failed");
        return unavailable(lookup.error);
      }
      return ok(searchAnswer(query.q, lookup.doc));
    },
  });
}
