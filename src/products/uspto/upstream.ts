// The USPTO Open Data Portal (ODP) API (https://api.uspto.gov/api/v1), which replaced PatentsView's
// PatentSearch API on 2026-03-20 (search.patentsview.org no longer resolves; PatentSearch keys are not accepted).
//
// Requests: `POST /api/v1/patent/applications/search` with a JSON body {q, filters, rangeFilters, sort, fields,
// pagination} (q in OpenSearch query-string syntax, e.g. `applicationMetaData.patentNumber:11646472`), key in
// the `x-api-key` header; `GET /api/v1/patent/status-codes` is the cheap call the preflight makes. Answers:
// {count, patentFileWrapperDataBag: [{applicationNumberText, applicationMetaData: {…}, parentContinuityBag}],
// requestIdentifier}, where count is every match, not the page; no match is HTTP 404 with detailedMessage "No
// matching records found, refine your search criteria and try again"; a bad request is 400, a missing key 401,
// a refused (or not yet activated) key 403.
// Sources of the shapes: the portal's OpenAPI document (data.uspto.gov/swagger/swagger.yaml and
// odp-common-base.yaml, as copied in github.com/patent-dev/uspto-odp `swagger/`), the raw answers that client
// captured with curl (`testdata/strictdecode/search_patents.json`, `get_status_codes.json`), a live 404 body
// and trimmed live records in github.com/B0001/einstein (`tests/test_uspto_fetcher.py`,
// `tests/fixtures/uspto_patent_search.json`), and the 401/403 behaviour as public clients of the portal report
// it. Each recording names its own source.
// Limits (the portal's rate-limit page, data.uspto.gov/apis/api-rate-limits): one request at a time per key, at least 5 s back-off after a 429,
// 10,000 results per query (offset + limit), weekly caps per key (millions of metadata calls, far above this
// service's use; not booked here). Answers over 6 MB are refused with 413, so
// the search asks only for the fields it maps.
// Terms: USPTO data is a work of the US government, free of copyright in the US (17 U.S.C. § 105); the portal
// needs a free key tied to a USPTO.gov account verified through ID.me.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import { normaliseSearch, PatentShapeError, type StoredSearchPage } from "./normalise.ts";
import type { UsptoSettings } from "./settings.ts";

const SEARCH_PATH = "/api/v1/patent/applications/search";
export const STATUS_CODES_PATH = "/api/v1/patent/status-codes";
export const SEARCH_SIZE = 25;
/** The portal serves at most 10,000 results of one query (offset + limit). */
const MAX_RESULTS = 10_000;
/** The least pause after a 429 the portal asks for. */
export const BACKOFF_MS = 5_000;

const SEARCH_FIELDS = [
  "applicationNumberText",
  "applicationMetaData.patentNumber",
  "applicationMetaData.inventionTitle",
  "applicationMetaData.grantDate",
  "applicationMetaData.filingDate",
  "applicationMetaData.applicationTypeLabelName",
  "applicationMetaData.applicantBag",
  "applicationMetaData.inventorBag",
  "applicationMetaData.cpcClassificationBag",
  "parentContinuityBag",
];

export function odpSpec(settings: Pick<UsptoSettings, "minIntervalMs">): UpstreamSpec {
  return {
    name: "uspto",
    defaultBaseUrl: "https://api.uspto.gov",
    // One request at a time per key; the spacing is booked for every node sharing the store.
    maxConcurrent: 1,
    minIntervalMs: settings.minIntervalMs,
    timeoutMs: 15_000,
    retries: 1,
    // A 5 s back-off and one retry still fit in the buyer's 8 s; a longer Retry-After fails the call at once.
    maxRetryAfterMs: 6_000,
    throttle: { statuses: [429], defaultPauseMs: BACKOFF_MS, minPauseMs: BACKOFF_MS },
  };
}

export const USPTO_TERMS = {
  name: "USPTO data: a work of the US government, not subject to copyright in the US (17 U.S.C. § 105)",
  url: "https://www.uspto.gov/terms-use-uspto-websites",
  attribution: "Data from the USPTO Open Data Portal (data.uspto.gov)",
};

export const USPTO_SOURCE: SourceInfo = {
  name: "USPTO Open Data Portal API v1: patent file wrappers (US patent grants)",
  url: "https://data.uspto.gov/apis/patent-file-wrapper/search",
  licence: USPTO_TERMS,
  notice:
    "Bibliographic data of US patent grants as the USPTO Open Data Portal publishes it; not legal advice.",
};

/** The portal did not answer usably (down, throttled, key refused, unknown shape): 503 to the buyer. */
export class OdpUnavailable extends Error {
  readonly status: number | undefined;
  /** `cause`: the client's error (an UpstreamBudgetError after a 429 says how long to wait). */
  constructor(message: string, status?: number, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.status = status;
  }
}

/** The portal refused the query itself (HTTP 400): the buyer's to change, never an outage. */
export class OdpQueryRefused extends Error {}

interface OdpSearch {
  q: string;
  /** Only grants: a grant-date range up to today. */
  grantsOnly?: { since: string };
  size?: number;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Every word in the invention title. Words are runs of letters and digits, each quoted, so no operator, field
 * or wildcard of the buyer's reaches the portal's query-string parser.
 */
export function titleQuery(q: string): string {
  const words = [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 20);
  return words.map((w) => `applicationMetaData.inventionTitle:"${w}"`).join(" AND ");
}

/**
 * A grant number as the portal may hold it. Utility grants are plain digits ("11646472"); for design, plant
 * and other prefixed grants no public capture shows the form, so both the prefixed and the bare digits are
 * asked and the normaliser keeps only a record of the matching type.
 */
export function numberQuery(patentNumber: string): string {
  const prefixed = patentNumber.match(/^([A-Z]+)(\d+)$/);
  if (!prefixed) return `applicationMetaData.patentNumber:${patentNumber}`;
  return `applicationMetaData.patentNumber:${patentNumber} OR applicationMetaData.patentNumber:${prefixed[2]}`;
}

/** The search's JSON body; parts it does not use are left out rather than sent empty. */
export function searchBody(search: OdpSearch): Record<string, unknown> {
  return {
    q: search.q,
    ...(search.grantsOnly
      ? {
          rangeFilters: [
            { field: "applicationMetaData.grantDate", valueFrom: search.grantsOnly.since, valueTo: today() },
          ],
        }
      : {}),
    sort: [{ field: "applicationMetaData.grantDate", order: "desc" }],
    fields: SEARCH_FIELDS,
    pagination: { offset: 0, limit: Math.min(search.size ?? SEARCH_SIZE, MAX_RESULTS) },
  };
}

type Ctx = Pick<HandlerContext, "upstreams">;

const request = { path: SEARCH_PATH, headers: { accept: "application/json" } };

/** Where the search was sent (a POST: its q is shown as a query parameter; the key travels in a header). */
export function searchUrl(ctx: Ctx, settings: UsptoSettings, q: string): string {
  return ctx.upstreams.client(odpSpec(settings)).url({ path: SEARCH_PATH, query: { q } });
}

/** The portal's error text: `detailedMessage` in captured answers, `errorDetails` in its OpenAPI examples. */
export function errorDetail(body: string): string {
  try {
    const doc = JSON.parse(body) as Record<string, unknown>;
    for (const key of ["detailedMessage", "errorDetails", "detailedError", "message", "error"]) {
      if (typeof doc[key] === "string" && doc[key] !== "") return (doc[key] as string).slice(0, 200);
    }
  } catch {}
  return body.trim().slice(0, 200);
}

export function isNoMatch(status: number, body: string): boolean {
  return status === 404 && /no matching records/i.test(errorDetail(body));
}

export async function searchPatents(
  ctx: Ctx,
  settings: UsptoSettings,
  search: OdpSearch,
): Promise<{ page: StoredSearchPage; recordedSample: boolean }> {
  const client = ctx.upstreams.client(odpSpec(settings));
  let response: Awaited<ReturnType<typeof client.postJson>>;
  try {
    response = await client.postJson(
      {
        ...request,
        headers: { ...request.headers, ...(settings.apiKey ? { "x-api-key": settings.apiKey } : {}) },
      },
      searchBody(search),
    );
  } catch (error) {
    if (error instanceof UpstreamError) throw new OdpUnavailable(error.message, error.status, error);
    throw new OdpUnavailable(`uspto: ${String(error)}`, undefined, error);
  }
  if (isNoMatch(response.status, response.body)) {
    return { page: { totalHits: 0, patents: [] }, recordedSample: response.recordedSample };
  }
  if (response.status === 400) throw new OdpQueryRefused(errorDetail(response.body));
  if (response.status !== 200) {
    const why =
      response.status === 401
        ? " (no API key sent: set USPTO_API_KEY)"
        : response.status === 403
          ? " (API key refused, or not yet activated: check USPTO_API_KEY)"
          : "";
    const detail = errorDetail(response.body);
    throw new OdpUnavailable(
      `uspto: HTTP ${response.status}${why}${detail ? `: ${detail}` : ""}`,
      response.status,
    );
  }
  try {
    return { page: normaliseSearch(response.body), recordedSample: response.recordedSample };
  } catch (error) {
    if (error instanceof PatentShapeError) throw new OdpUnavailable(`uspto: ${error.message}`, 200);
    throw error;
  }
}
