// GET /v1/edgar/search: companies by name or ticker from SEC's ticker file (exact ticker first, then names
// starting with the query, then names containing every word).
import { z } from "zod";
import { notCached, ok, product } from "../../catalog/product.ts";
import { COMPANY_RETRY_AFTER_SEC } from "./company-params.ts";
import { tickerList } from "./edgar-store.ts";
import { directoryFor } from "./tickers.ts";
import { EDGAR_SOURCE, unlessSecBlocked } from "./upstream.ts";
import { TICKERS_WARMER } from "./warmers.ts";

const SEARCH_DEFAULT_LIMIT = 10;
const SEARCH_MAX_LIMIT = 50;

export const SearchQuery = z.object({
  q: z
    .string({ error: "q is required: a company name or ticker, e.g. apple or AAPL" })
    .trim()
    .min(1, "q must not be empty: a company name or ticker")
    .max(200, "q must be at most 200 characters")
    .describe("Company name (or its first words) or ticker"),
  limit: z.coerce
    .number({ error: `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}` })
    .int(`limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}`)
    .min(1, `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}`)
    .max(SEARCH_MAX_LIMIT, `limit must be at most ${SEARCH_MAX_LIMIT}`)
    .default(SEARCH_DEFAULT_LIMIT)
    .describe(`Most hits to return (default ${SEARCH_DEFAULT_LIMIT}, max ${SEARCH_MAX_LIMIT})`),
});

export const SearchAnswer = z.object({
  query: z.string(),
  source: z.url().describe("SEC's ticker file the companies come from"),
  fetchedAt: z.iso.datetime(),
  count: z.number().int().nonnegative(),
  hits: z.array(
    z.object({
      cik: z.string().regex(/^\d{10}$/),
      ticker: z.string(),
      name: z.string(),
      matchedBy: z.enum(["ticker", "cik", "namePrefix", "allWords"]).describe("Which rule found the company"),
    }),
  ),
  match: z.boolean(),
  message: z.string().optional().describe("Present when nothing matched"),
});

type SearchAnswerBody = z.infer<typeof SearchAnswer>;

export const edgarSearch = product({
  sku: "edgar.search",
  method: "GET",
  path: "/v1/edgar/search",
  summary: "Find SEC-registered listed companies by name or ticker",
  description:
    "Searches SEC's list of companies with tickers: an exact ticker (or CIK) first, then names starting with the " +
    "query, then names containing every word of it; one hit per company with its CIK, ticker and name. limit " +
    "defaults to 10, at most 50. No match is a 200 answer with match:false.",
  status: "live",
  tags: ["edgar", "sec", "search", "companies"],
  price: "0.005",
  query: SearchQuery,
  answer: SearchAnswer,
  sample: { q: "apple" },
  source: EDGAR_SOURCE,

  async handle({ query }, ctx) {
    const list = await tickerList(ctx);
    if (!list) {
      await ctx.store.jobs.enqueue("warmer", TICKERS_WARMER, { warmer: TICKERS_WARMER });
      return unlessSecBlocked(
        ctx,
        notCached(
          `SEC's ticker list is not cached yet; it has been queued for fetching. Try again in about ${COMPANY_RETRY_AFTER_SEC} seconds.`,
          COMPANY_RETRY_AFTER_SEC,
        ),
      );
    }
    const hits = directoryFor(list.body)
      .search(query.q, query.limit)
      .map(({ cik, ticker, name, matchedBy }) => ({ cik, ticker, name, matchedBy }));
    const answer: SearchAnswerBody = {
      query: query.q,
      source: list.body.source,
      fetchedAt: list.fetchedAt,
      count: hits.length,
      hits,
      match: hits.length > 0,
    };
    if (hits.length === 0)
      answer.message = `No company with a ticker matches ${JSON.stringify(query.q)} by ticker, CIK, name prefix or all words.`;
    return ok(answer);
  },
});
