// GET /v1/uspto/patent: one US patent grant by number, or the newest grants whose title or abstract holds every
// word of q, from PatentsView. Cached (grants by number for 30 days, searches by normalised query); a miss is
// asked of PatentsView live inside the paid call, bounded; if it fails and nothing is cached: 503, not charged.
import { z } from "zod";
import { type ErrorOutcome, type HandlerContext, notFound, ok, product } from "../../catalog/product.ts";
import { sha256 } from "../../sha256.ts";
import type { CachedDocument, PutDocument } from "../../store/cache.ts";
import { liveCached } from "../../upstream/live-cache.ts";
import type { StoredPatent, StoredSearchPage } from "./normalise.ts";
import { PatentQuery } from "./query.ts";
import type { UsptoSettings } from "./settings.ts";
import {
  idQuery,
  PATENTSVIEW_TERMS,
  type PatentQueryJson,
  SEARCH_SIZE,
  searchPatents,
  searchUrl,
  textQuery,
  USPTO_SOURCE,
} from "./upstream.ts";

export const USPTO_CACHE = "uspto";
export const PATENT_TTL_MS = 30 * 24 * 3600_000;
export const MISSING_TTL_MS = 24 * 3600_000;
export const UNAVAILABLE_RETRY_SEC = 60;

export const PatentSchema = z.object({
  patentNumber: z.string().describe("PatentsView patent_id: 11896123, D987654, RE49876"),
  title: z.string().nullable(),
  abstract: z.string().nullable(),
  type: z.string().nullable().describe("utility, design, plant, reissue …"),
  grantDate: z.iso.date().nullable(),
  filingDate: z.iso.date().nullable().describe("Filing date of the application"),
  earliestApplicationDate: z.iso.date().nullable().describe("Earliest related application date"),
  assignees: z.array(z.string()).describe("Assignees at grant: organisations, or persons' names"),
  inventorsCount: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe("Number of inventors (names are not given)"),
  cpcGroups: z.array(z.string()).describe("Current CPC groups, e.g. G06F16/245"),
  cpcSubclasses: z.array(z.string()).describe("Current CPC subclasses, e.g. G06F"),
  claimsCount: z.number().int().nonnegative().nullable(),
  googlePatentsUrl: z.url().describe("The grant's page on Google Patents"),
});

export const PatentAnswer = z.object({
  ok: z.literal(true),
  query: z.object({ q: z.string().nullable(), patentNumber: z.string().nullable() }),
  match: z.boolean(),
  count: z.number().int().nonnegative(),
  totalCount: z.number().int().nonnegative().describe("All grants PatentsView matched"),
  patents: z.array(PatentSchema).describe(`Newest grant first; at most ${SEARCH_SIZE}`),
  message: z.string().optional().describe("Present when nothing matched"),
  sourceUrl: z.url().describe("The PatentSearch request (the API key is sent in a header, never in the URL)"),
  sources: z.array(z.url()),
  fetchedAt: z.iso.datetime({ offset: true }),
  licence: z.object({ name: z.string(), url: z.url(), attribution: z.string() }),
  notice: z.string(),
});

export type PatentAnswerBody = z.infer<typeof PatentAnswer>;

interface MissingPatent {
  missing: true;
  checkedAt: string;
}

type CachedSearch = StoredSearchPage & { url: string };
type CachedPatent = { patent: StoredPatent; url: string } | MissingPatent;

const SAMPLE_PREFIX =
  "RECORDED SAMPLE, NOT LIVE DATA: this answer comes from a recorded sample of the PatentSearch API's documented " +
  "response shape (UPSTREAMS=replay); titles, numbers and names are placeholders. ";

export function googlePatentsUrl(patentNumber: string): string {
  return `https://patents.google.com/patent/US${patentNumber}`;
}

export function patentAnswerOf(p: StoredPatent) {
  return { ...p, googlePatentsUrl: googlePatentsUrl(p.patentNumber) };
}

function notice(recordedSample: boolean): string {
  return `${recordedSample ? SAMPLE_PREFIX : ""}${PATENTSVIEW_TERMS.attribution}. ${USPTO_SOURCE.notice}`;
}

function unavailable(): ErrorOutcome {
  return {
    status: 503,
    body: {
      error: "upstream_unavailable",
      message: `PatentsView did not answer and this request is not cached; nothing was charged. Try again in about ${UNAVAILABLE_RETRY_SEC} seconds.`,
      charged: false,
      retryAfterSec: UNAVAILABLE_RETRY_SEC,
    },
  };
}

export const patentKey = (id: string) => `patent:${id}`;
export const searchKey = (q: string) => `search:${sha256(q.toLowerCase()).slice(0, 16)}`;

type Ctx = HandlerContext;

function putOf<T>(body: T, ttlMs: number, recordedSample: boolean): PutDocument<T> {
  const now = Date.now();
  return {
    body,
    fetchedAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ttlMs).toISOString(),
    recordedSample,
  };
}

/** Grants found by a search are cached by number too. */
export async function cachePatents(
  ctx: Pick<Ctx, "store">,
  patents: StoredPatent[],
  url: string,
  recordedSample: boolean,
): Promise<void> {
  if (patents.length === 0) return;
  await ctx.store.cache.putMany(
    USPTO_CACHE,
    patents.map((patent) => ({
      key: patentKey(patent.patentNumber),
      ...putOf<CachedPatent>({ patent, url }, PATENT_TTL_MS, recordedSample),
    })),
  );
}

async function byNumber(ctx: Ctx, settings: UsptoSettings, id: string) {
  const query: PatentQueryJson = idQuery(id);
  const url = searchUrl(ctx, settings, query, 1);
  const result = await liveCached<CachedPatent>(ctx, {
    cacheFamily: USPTO_CACHE,
    key: patentKey(id),
    fetch: async () => {
      const { page, recordedSample } = await searchPatents(ctx, settings, query, 1);
      const patent = page.patents.find((p) => p.patentNumber === id);
      if (!patent)
        return putOf<CachedPatent>(
          { missing: true, checkedAt: new Date().toISOString() },
          MISSING_TTL_MS,
          recordedSample,
        );
      return putOf<CachedPatent>({ patent, url }, PATENT_TTL_MS, recordedSample);
    },
  });
  if (!result.ok) return unavailable();
  const body = result.doc.body;
  if ("missing" in body) {
    return notFound(`PatentsView has no US patent grant ${id} (checked ${body.checkedAt}).`, {
      patentNumber: id,
      checkedAt: body.checkedAt,
    });
  }
  return ok<PatentAnswerBody>({
    ok: true,
    query: { q: null, patentNumber: id },
    match: true,
    count: 1,
    totalCount: 1,
    patents: [patentAnswerOf(body.patent)],
    sourceUrl: body.url,
    sources: [body.url],
    fetchedAt: result.doc.fetchedAt,
    licence: PATENTSVIEW_TERMS,
    notice: notice(result.doc.recordedSample),
  });
}

async function bySearch(ctx: Ctx, settings: UsptoSettings, q: string) {
  // PatentsView's text operators ignore case; the query is sent as it is cached.
  const query = textQuery(q.toLowerCase());
  const url = searchUrl(ctx, settings, query);
  const result = await liveCached<CachedSearch>(ctx, {
    cacheFamily: USPTO_CACHE,
    key: searchKey(q),
    fetch: async () => {
      const { page, recordedSample } = await searchPatents(ctx, settings, query);
      await cachePatents(ctx, page.patents, url, recordedSample);
      return putOf<CachedSearch>({ ...page, url }, settings.searchTtlMs, recordedSample);
    },
  });
  if (!result.ok) return unavailable();
  const doc: CachedDocument<CachedSearch> = result.doc;
  const match = doc.body.patents.length > 0;
  return ok<PatentAnswerBody>({
    ok: true,
    query: { q, patentNumber: null },
    match,
    count: doc.body.patents.length,
    totalCount: doc.body.totalHits,
    patents: doc.body.patents.map(patentAnswerOf),
    ...(match
      ? {}
      : { message: `No US patent grant has every word of "${q}" in its title or its abstract.` }),
    sourceUrl: doc.body.url,
    sources: [doc.body.url],
    fetchedAt: doc.fetchedAt,
    licence: PATENTSVIEW_TERMS,
    notice: notice(doc.recordedSample),
  });
}

export function usptoPatent(settings: UsptoSettings) {
  return product({
    sku: "uspto.patent",
    method: "GET",
    path: "/v1/uspto/patent",
    summary: "US patent grants from PatentsView: by number, or by words in title and abstract",
    description:
      "One US patent grant by patentNumber (11896123, US 11,896,123 B2, D987654, RE49876), or with q the newest " +
      `${SEARCH_SIZE} grants whose title or abstract contains every word: title, abstract, type, grant, filing and ` +
      "earliest application dates, assignees, the number of inventors, current CPC groups and subclasses, number " +
      "of claims and a Google Patents link. Give exactly one of q or patentNumber. Grants are cached 30 days, " +
      "searches a day; a miss is asked of PatentsView live. Unknown number: 404; no hits: 200 with match:false; " +
      "PatentsView down: 503; only 200s are charged.",
    status: "live",
    tags: ["patents", "uspto", "patentsview"],
    price: "0.01",
    query: PatentQuery,
    answer: PatentAnswer,
    sample: { patentNumber: "11896123" },
    source: USPTO_SOURCE,
    async handle({ query }, ctx) {
      if (query.patentNumber !== undefined) return byNumber(ctx, settings, query.patentNumber);
      return bySearch(ctx, settings, query.q as string);
    },
  });
}
