// GET /v1/uspto/patent: one US patent grant by number, or the newest grants whose title holds every word of q,
// from the USPTO Open Data Portal. Cached (grants by number for 30 days, searches by normalised query); a miss
// is asked of the portal live inside the paid call, bounded; if it fails and nothing is cached: 503, not charged.
// A query the portal refuses (HTTP 400) is a 400 to the buyer, not charged and not counted as an outage.
import { z } from "zod";
import {
  badRequest,
  type ErrorOutcome,
  type HandlerContext,
  notFound,
  ok,
  product,
  upstreamUnavailable,
} from "../../catalog/product.ts";
import { sha256 } from "../../sha256.ts";
import type { CachedDocument, PutDocument } from "../../store/cache.ts";
import { UpstreamBudgetError } from "../../upstream/client.ts";
import { type LiveCacheResult, liveCached } from "../../upstream/live-cache.ts";
import { FIELD_NOTES, type StoredPatent, type StoredSearchPage } from "./normalise.ts";
import { PatentQuery } from "./query.ts";
import type { UsptoSettings } from "./settings.ts";
import {
  numberQuery,
  OdpQueryRefused,
  OdpUnavailable,
  SEARCH_SIZE,
  searchPatents,
  searchUrl,
  titleQuery,
  USPTO_SOURCE,
  USPTO_TERMS,
} from "./upstream.ts";

export const USPTO_CACHE = "uspto";
const PATENT_TTL_MS = 30 * 24 * 3600_000;
const MISSING_TTL_MS = 24 * 3600_000;
/** A query the portal refused is not asked again for this long. */
const REFUSED_TTL_MS = 3600_000;
const UNAVAILABLE_RETRY_SEC = 60;
/** The lower end of the grant-date range that keeps a search to grants (the first US patent: 1790). */
const EARLIEST_GRANT = "1790-01-01";

const PatentSchema = z.object({
  patentNumber: z.string().describe("The grant number: 11646472, D987654, RE49876"),
  applicationNumber: z.string().nullable().describe("The application it was granted on (17248024)"),
  title: z.string().nullable(),
  abstract: z.string().nullable().describe("Always null: the portal gives no abstract (see fieldNotes)"),
  type: z.string().nullable().describe("utility, design, plant … (the portal's application type)"),
  grantDate: z.iso.date().nullable(),
  filingDate: z.iso.date().nullable().describe("Filing date of the application"),
  earliestApplicationDate: z.iso
    .date()
    .nullable()
    .describe("Earliest filing date of the application and the US applications it claims"),
  assignees: z.array(z.string()).describe("Applicants named in the file wrapper (see fieldNotes)"),
  inventorsCount: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe("Number of inventors (names are not given)"),
  cpcGroups: z.array(z.string()).describe("CPC groups of the application, e.g. H01M50/46"),
  cpcSubclasses: z.array(z.string()).describe("CPC subclasses of the application, e.g. H01M"),
  claimsCount: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe("Always null: the portal gives no claim count (see fieldNotes)"),
  googlePatentsUrl: z.url().describe("The grant's page on Google Patents"),
});

export const PatentAnswer = z.object({
  ok: z.literal(true),
  query: z.object({ q: z.string().nullable(), patentNumber: z.string().nullable() }),
  match: z.boolean(),
  count: z.number().int().nonnegative(),
  totalCount: z.number().int().nonnegative().describe("All grants the portal matched"),
  patents: z.array(PatentSchema).describe(`Newest grant first; at most ${SEARCH_SIZE}`),
  message: z.string().optional().describe("Present when nothing matched"),
  fieldNotes: z
    .record(z.string(), z.string())
    .describe("Why a field is always null, or what it holds, with the Open Data Portal as source"),
  sourceUrl: z
    .url()
    .describe(
      "The portal search, its q shown as a query parameter (the API key is sent in a header, never in the URL)",
    ),
  sources: z.array(z.url()),
  fetchedAt: z.iso.datetime({ offset: true }),
  licence: z.object({ name: z.string(), url: z.url(), attribution: z.string() }),
  notice: z.string(),
});

type PatentAnswerBody = z.infer<typeof PatentAnswer>;

interface MissingPatent {
  missing: true;
  checkedAt: string;
}

/** The portal refused the query (HTTP 400): cached briefly so the same query is not sent again at once. */
interface RefusedQuery {
  refused: string;
}

type CachedSearch = (StoredSearchPage & { url: string }) | RefusedQuery;
type CachedPatent = { patent: StoredPatent; url: string } | MissingPatent | RefusedQuery;

const SAMPLE_PREFIX =
  "RECORDED SAMPLE, NOT LIVE DATA: this answer comes from recorded Open Data Portal answers (records captured " +
  "by public clients, trimmed; UPSTREAMS=replay). ";

function googlePatentsUrl(patentNumber: string): string {
  return `https://patents.google.com/patent/US${patentNumber}`;
}

function patentAnswerOf(p: StoredPatent) {
  return {
    ...p,
    applicationNumber: p.applicationNumber ?? null,
    googlePatentsUrl: googlePatentsUrl(p.patentNumber),
  };
}

function notice(recordedSample: boolean): string {
  return `${recordedSample ? SAMPLE_PREFIX : ""}${USPTO_TERMS.attribution}. ${USPTO_SOURCE.notice}`;
}

/** 503, not charged; after a 429 the wait the portal's pause still needs, else a minute. */
function unavailable(result: Extract<LiveCacheResult<unknown>, { ok: false }>): ErrorOutcome {
  const error = result.error instanceof OdpUnavailable ? result.error.cause : result.error;
  const retryAfterSec =
    error instanceof UpstreamBudgetError ? Math.max(error.retryAfterSec, 1) : UNAVAILABLE_RETRY_SEC;
  const throttled = error instanceof UpstreamBudgetError || (error as { status?: number })?.status === 429;
  return upstreamUnavailable(
    `The USPTO Open Data Portal ${throttled ? "asked this service to slow down" : "gave no usable answer"} and this request is not cached; nothing was charged. Try again in about ${retryAfterSec} seconds.`,
    { retryAfterSec },
  );
}

function refused(parameter: string, detail: string): ErrorOutcome {
  return badRequest(
    parameter,
    `The USPTO Open Data Portal refused this query (${detail}); change ${parameter}. Nothing was charged.`,
  );
}

/** Cache keys of the Open Data Portal era (the PatentsView era's `patent:` and `search:` are never read). */
export const GRANT_PREFIX = "grant:";
export const SEARCH_PREFIX = "title-search:";
const patentKey = (id: string) => `${GRANT_PREFIX}${id}`;
const searchKey = (q: string) => `${SEARCH_PREFIX}${sha256(q.toLowerCase()).slice(0, 16)}`;

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
  const q = numberQuery(id);
  const url = searchUrl(ctx, settings, q);
  const result = await liveCached<CachedPatent>(ctx, {
    cacheFamily: USPTO_CACHE,
    key: patentKey(id),
    fetch: async () => {
      let found: Awaited<ReturnType<typeof searchPatents>>;
      try {
        found = await searchPatents(ctx, settings, { q, size: 5 });
      } catch (error) {
        if (!(error instanceof OdpQueryRefused)) throw error;
        return putOf<CachedPatent>({ refused: error.message }, REFUSED_TTL_MS, false);
      }
      const { page, recordedSample } = found;
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
  if (!result.ok) return unavailable(result);
  const body = result.doc.body;
  if ("refused" in body) return refused("patentNumber", body.refused);
  if ("missing" in body) {
    return notFound(
      `The USPTO Open Data Portal has no US patent grant ${id} (checked ${body.checkedAt}); its file-wrapper data does not cover every older grant.`,
      { patentNumber: id, checkedAt: body.checkedAt },
    );
  }
  return ok<PatentAnswerBody>({
    ok: true,
    query: { q: null, patentNumber: id },
    match: true,
    count: 1,
    totalCount: 1,
    patents: [patentAnswerOf(body.patent)],
    fieldNotes: FIELD_NOTES,
    sourceUrl: body.url,
    sources: [body.url],
    fetchedAt: result.doc.fetchedAt,
    licence: USPTO_TERMS,
    notice: notice(result.doc.recordedSample),
  });
}

async function bySearch(ctx: Ctx, settings: UsptoSettings, q: string) {
  // The portal's text matching ignores case; the query is sent as it is cached.
  const query = titleQuery(q);
  const url = searchUrl(ctx, settings, query);
  const result = await liveCached<CachedSearch>(ctx, {
    cacheFamily: USPTO_CACHE,
    key: searchKey(q),
    fetch: async () => {
      let found: Awaited<ReturnType<typeof searchPatents>>;
      try {
        found = await searchPatents(ctx, settings, { q: query, grantsOnly: { since: EARLIEST_GRANT } });
      } catch (error) {
        if (!(error instanceof OdpQueryRefused)) throw error;
        return putOf<CachedSearch>({ refused: error.message }, REFUSED_TTL_MS, false);
      }
      const { page, recordedSample } = found;
      await cachePatents(ctx, page.patents, url, recordedSample);
      return putOf<CachedSearch>({ ...page, url }, settings.searchTtlMs, recordedSample);
    },
  });
  if (!result.ok) return unavailable(result);
  const doc: CachedDocument<CachedSearch> = result.doc;
  const body = doc.body;
  if ("refused" in body) return refused("q", body.refused);
  const match = body.patents.length > 0;
  return ok<PatentAnswerBody>({
    ok: true,
    query: { q, patentNumber: null },
    match,
    count: body.patents.length,
    totalCount: body.totalHits,
    patents: body.patents.map(patentAnswerOf),
    ...(match ? {} : { message: `No US patent grant has every word of "${q}" in its title.` }),
    fieldNotes: FIELD_NOTES,
    sourceUrl: body.url,
    sources: [body.url],
    fetchedAt: doc.fetchedAt,
    licence: USPTO_TERMS,
    notice: notice(doc.recordedSample),
  });
}

export function usptoPatent(settings: UsptoSettings) {
  return product({
    sku: "uspto.patent",
    method: "GET",
    path: "/v1/uspto/patent",
    summary: "US patent grants from the USPTO Open Data Portal: by number, or by words in the title",
    description:
      "One US patent grant by patentNumber (11646472, US 11,646,472 B2, D987654, RE49876), or with q the newest " +
      `${SEARCH_SIZE} grants whose title contains every word: application number, title, type, grant, filing and ` +
      "earliest application dates, applicants, the number of inventors, CPC groups and subclasses and a Google " +
      "Patents link; abstract and claim count are null (the portal gives neither: see fieldNotes). Give exactly " +
      "one of q or patentNumber. Grants are cached 30 days, searches a day; a miss is asked of the portal live. " +
      "Unknown number: 404; no hits: 200 with match:false; a query the portal refuses: 400; portal down or " +
      "throttling: 503; only 200s are charged.",
    status: "live",
    tags: ["patents", "uspto"],
    price: "0.01",
    query: PatentQuery,
    answer: PatentAnswer,
    sample: { patentNumber: "11646472" },
    source: USPTO_SOURCE,
    async handle({ query }, ctx) {
      if (query.patentNumber !== undefined) return byNumber(ctx, settings, query.patentNumber);
      return bySearch(ctx, settings, query.q as string);
    },
  });
}
