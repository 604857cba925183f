// PatentsView PatentSearch API v1 (https://search.patentsview.org/api/v1/patent/). Sources: the PatentSearch
// docs and Swagger (search.patentsview.org/docs, /swagger-ui: q/f/s/o as JSON in query parameters, header
// X-Api-Key, 45 requests a minute per key, 429 over it), the reference notes (upstreams-us.md §10: answer
// {"error":false,"count":…,"total_hits":…,"patents":[…]}), public clients' field lists (patent_num_claims,
// patent_earliest_application_date, application.filing_date, assignees.*, inventors.*, cpc_current.*) and the
// PatentsView-API issue tracker (400 with an X-Status-Reason header for a bad query or field; 403 for a
// refused key). PatentsView's future is uncertain (the legacy API is gone, key sign-up was paused in 2026), so
// the family reports its state on /v1/uspto/status. Terms: PatentsView data is free to use with attribution
// (CC BY 4.0); the underlying USPTO grant data is a US government work.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import { normaliseSearch, PatentShapeError, type StoredSearchPage } from "./normalise.ts";
import type { UsptoSettings } from "./settings.ts";

export const PATENT_PATH = "/api/v1/patent/";
export const SEARCH_SIZE = 25;

export const PATENT_FIELDS = [
  "patent_id",
  "patent_title",
  "patent_abstract",
  "patent_date",
  "patent_type",
  "patent_num_claims",
  "patent_earliest_application_date",
  "application.filing_date",
  "assignees.assignee_organization",
  "assignees.assignee_individual_name_first",
  "assignees.assignee_individual_name_last",
  "inventors.inventor_id",
  "cpc_current.cpc_group_id",
  "cpc_current.cpc_subclass_id",
];

export function patentsViewSpec(settings: Pick<UsptoSettings, "minIntervalMs">): UpstreamSpec {
  return {
    name: "patentsview",
    defaultBaseUrl: "https://search.patentsview.org",
    maxConcurrent: 1,
    minIntervalMs: settings.minIntervalMs,
    timeoutMs: 15_000,
    retries: 1,
    maxRetryAfterMs: 5_000,
  };
}

export const PATENTSVIEW_TERMS = {
  name: "PatentsView data: Creative Commons Attribution 4.0 (CC BY 4.0); USPTO grant data is a US government work",
  url: "https://patentsview.org/terms-of-use",
  attribution: "Data from PatentsView (patentsview.org), USPTO Office of the Chief Economist",
};

export const USPTO_SOURCE: SourceInfo = {
  name: "PatentsView PatentSearch API v1 (US patent grants, USPTO)",
  url: "https://search.patentsview.org/",
  licence: PATENTSVIEW_TERMS,
  notice: "Bibliographic data of US patent grants as PatentsView publishes it; not legal advice.",
};

export class PatentsViewUnavailable extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

export type PatentQueryJson = Record<string, unknown>;

export function idQuery(patentNumber: string): PatentQueryJson {
  return { patent_id: patentNumber };
}

/** Every word in the title, or every word in the abstract. */
export function textQuery(q: string): PatentQueryJson {
  return { _or: [{ _text_all: { patent_title: q } }, { _text_all: { patent_abstract: q } }] };
}

export function sinceQuery(date: string): PatentQueryJson {
  return { _gte: { patent_date: date } };
}

type Ctx = Pick<HandlerContext, "upstreams">;

export function requestFor(query: PatentQueryJson, size = SEARCH_SIZE) {
  return {
    path: PATENT_PATH,
    query: {
      q: JSON.stringify(query),
      f: JSON.stringify(PATENT_FIELDS),
      s: JSON.stringify([{ patent_date: "desc" }, { patent_id: "desc" }]),
      o: JSON.stringify({ size }),
    },
  };
}

/** The search URL without the key (the key travels in a header). */
export function searchUrl(
  ctx: Ctx,
  settings: UsptoSettings,
  query: PatentQueryJson,
  size = SEARCH_SIZE,
): string {
  return ctx.upstreams.client(patentsViewSpec(settings)).url(requestFor(query, size));
}

export async function searchPatents(
  ctx: Ctx,
  settings: UsptoSettings,
  query: PatentQueryJson,
  size = SEARCH_SIZE,
): Promise<{ page: StoredSearchPage; recordedSample: boolean }> {
  const client = ctx.upstreams.client(patentsViewSpec(settings));
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get({
      ...requestFor(query, size),
      headers: { accept: "application/json", ...(settings.apiKey ? { "x-api-key": settings.apiKey } : {}) },
    });
  } catch (error) {
    if (error instanceof UpstreamError) throw new PatentsViewUnavailable(error.message, error.status);
    throw new PatentsViewUnavailable(`patentsview: ${String(error)}`);
  }
  if (response.status !== 200) {
    const reason = response.headers.get("x-status-reason") ?? response.body.trim().slice(0, 200);
    throw new PatentsViewUnavailable(
      `patentsview: HTTP ${response.status}${response.status === 403 ? " (API key refused)" : ""}${reason ? `: ${reason}` : ""}`,
      response.status,
    );
  }
  try {
    return { page: normaliseSearch(response.body), recordedSample: response.recordedSample };
  } catch (error) {
    if (error instanceof PatentShapeError)
      throw new PatentsViewUnavailable(`patentsview: ${error.message}`, 200);
    throw error;
  }
}
