// catalog.data.gov's Catalog API (the Flask/OpenSearch catalog that replaced CKAN in 2025), by two doors:
// - with an api.data.gov key (GOV_US_OPEN_DATA_API_KEY): the documented API, GSA's gateway
//   `https://api.gsa.gov/technology/datagov/v4` (key in X-Api-Key; 1,000 requests an hour per key), upstream
//   `gov-us-open-data-api`, moved by GOV_US_OPEN_DATA_API_BASE_URL;
// - without one: the site's own keyless backend `https://catalog.data.gov` (GOV_US_OPEN_DATA_BASE_URL), which
//   GSA says will move behind api.data.gov and which carries no service commitment. The route's upstream name
//   (GET /v1/gov) and every answer's `source` say which door answered.
// Both answer `GET /search?q=…&per_page=20` with `{after, sort, results[]}`: cursor paging (`after` absent on
// the last page) and NO total, so totalCount is null. A dataset id (its slug or DCAT identifier) is looked up
// with the same search and an exact match on `slug` or `identifier`.
//
// Sources: GSA's Catalog API documentation (github.com/GSA/resources.data.gov, pages/catalog-api.md, commit
// 8325d32e: the example response to `/search?q=education&per_page=1` is a recording here; later versions add
// org_type and the coming move behind api.data.gov); the catalog's server (github.com/GSA/datagov-catalog,
// app/api_schemas.py and shared/constants.py at commit f8880b8d: Dataset {dcat, description, identifier,
// keyword, last_harvested_date, organization {name, slug, organization_type}, publisher, slug}, SearchResults
// {results, sort, after}; organization_type one of Federal Government, City Government, State Government,
// County Government, University, Tribal, Non-Profit); public clients calling the v4 door with the same
// parameters and parsing the same `results`. Errors from the gateway: `{"error": {"code", "message"}}` (403
// API_KEY_MISSING / API_KEY_INVALID); from the catalog `{"error", "message"}`.
//
// Licence: the catalog holds records of federal, state, county and city governments, tribes, universities and
// non-profits. Only a federal agency's record is a US government work (17 U.S.C. 105); every item says, from
// its publisher's type, what is known (`licenceNote`), and passes the record's own `dcat.license` through.

import { type Config, envString } from "../../../../config.ts";
import { UpstreamError, type UpstreamSpec } from "../../../../upstream/client.ts";
import { type DatasetDetailBody, type DatasetItemBody, isoTimestamp } from "../dataset.ts";
import {
  type Ctx,
  type DatasetLookup,
  MAX_RESOURCES,
  PAGE_SIZE,
  type Portal,
  type PortalAdapter,
} from "../portal.ts";
import { readJson } from "./read-json.ts";

export const DATAGOV_API_KEY_SETTING = "GOV_US_OPEN_DATA_API_KEY";

/** The documented, keyed door: GSA's api.data.gov gateway (1,000 requests an hour per key). */
export const DATAGOV_API_UPSTREAM: UpstreamSpec = {
  name: "gov-us-open-data-api",
  defaultBaseUrl: "https://api.gsa.gov/technology/datagov/v4",
  maxConcurrent: 1,
  minIntervalMs: 500,
  // The key's published allowance, booked cluster-wide.
  limits: { perHour: 1000 },
  timeoutMs: 8000,
  retries: 1,
  maxRetryAfterMs: 5000,
};

export function datagovApiKey(env: Record<string, string | undefined>): string | undefined {
  return envString(env, DATAGOV_API_KEY_SETTING);
}

/** Which door a search goes through: the documented keyed API, or the keyless backend. */
function datagovDoor(key: string | undefined, portal: Portal) {
  const headers: Record<string, string> = key ? { "x-api-key": key } : {};
  return { spec: key ? DATAGOV_API_UPSTREAM : portal.upstream, headers };
}

/** The publisher types the catalog knows (organization.organization_type). */
const FEDERAL = "Federal Government";

interface DcatDistribution {
  title?: string;
  format?: string;
  mediaType?: string;
  downloadURL?: string;
  accessURL?: string;
}

export interface DatagovResult {
  title?: string;
  description?: string;
  identifier?: string;
  slug?: string;
  publisher?: string;
  keyword?: string[];
  last_harvested_date?: string;
  distribution_titles?: string[];
  organization?: { name?: string; slug?: string; organization_type?: string } | null;
  dcat?: {
    title?: string;
    description?: string;
    modified?: string;
    license?: string;
    keyword?: string[];
    landingPage?: string;
    distribution?: Array<DcatDistribution | string>;
  } | null;
}

interface DatagovPage {
  after?: string;
  results?: DatagovResult[];
  error?: unknown;
  message?: string;
}

function idOf(result: DatagovResult): string {
  return result.slug ?? result.identifier ?? "";
}

/**
 * What is known of a record's licence from its publisher's type: a federal agency's record is a US government
 * work; a state's, city's, tribe's, university's or non-profit's is not, and its terms are the publisher's.
 */
export function licenceNoteOf(publisherType: string | null, licence: string | null): string {
  const own = licence ? `the record states its licence as ${licence}` : "the record states no licence";
  if (publisherType === FEDERAL) {
    return `Published by a federal agency: a US government work, not subject to copyright in the United States (17 U.S.C. 105); ${own}.`;
  }
  if (publisherType) {
    return `Published by a ${publisherType} publisher, not a federal agency: not a US government work, the publisher's terms apply; ${own}.`;
  }
  return `The publisher's type is not given, so whether this is a US government work is not known; ${own}.`;
}

export function normaliseDatagovResult(result: DatagovResult): DatasetItemBody {
  const id = idOf(result);
  const licence = result.dcat?.license ?? null;
  const publisherType = result.organization?.organization_type ?? null;
  return {
    id,
    title: result.title ?? result.dcat?.title ?? id,
    organization: result.organization?.name ?? result.publisher ?? null,
    modified: isoTimestamp(result.dcat?.modified ?? result.last_harvested_date),
    resourceCount: result.distribution_titles?.length ?? result.dcat?.distribution?.length ?? 0,
    sourceUrl: `https://catalog.data.gov/dataset/${encodeURIComponent(id)}`,
    dataLicence: licence ? { id: null, title: null, url: licence } : null,
    publisherType,
    licenceNote: licenceNoteOf(publisherType, licence),
  };
}

export function normaliseDatagovDetail(result: DatagovResult): DatasetDetailBody {
  const distributions = (result.dcat?.distribution ?? []).filter(
    (d): d is DcatDistribution => typeof d === "object" && d !== null,
  );
  return {
    ...normaliseDatagovResult(result),
    description: result.description ?? result.dcat?.description ?? null,
    keywords: result.keyword ?? result.dcat?.keyword ?? [],
    resources: distributions.slice(0, MAX_RESOURCES).map((d) => ({
      name: d.title ?? null,
      format: d.format ?? d.mediaType ?? null,
      url: d.downloadURL ?? d.accessURL ?? null,
    })),
  };
}

function errorText(page: DatagovPage, status: number): string {
  const error = page.error as { code?: string; message?: string } | string | undefined;
  if (typeof error === "string") return page.message ? `${error}: ${page.message}` : error;
  const text = error?.message ?? page.message ?? `HTTP ${status}`;
  return error?.code ? `${error.code} ${text}` : text;
}

async function searchPage(ctx: Ctx, key: string | undefined, portal: Portal, query: string) {
  const door = datagovDoor(key, portal);
  const client = ctx.upstreams.client(door.spec);
  const response = await client.get({
    path: "/search",
    query: { q: query, per_page: PAGE_SIZE },
    headers: { accept: "application/json", ...door.headers },
  });
  const page = readJson<DatagovPage>(portal, response);
  if (response.status !== 200 || !Array.isArray(page.results)) {
    throw new UpstreamError(
      door.spec.name,
      `search failed: ${errorText(page, response.status)}`,
      response.status,
    );
  }
  return { response, results: page.results };
}

/** The adapter, with the api.data.gov key read once when the family is built (the keyless door without one). */
export function datagovAdapter(config: Pick<Config, "env">): PortalAdapter {
  const key = datagovApiKey(config.env);
  return {
    search: (ctx, portal, query) => searchDatasets(ctx, key, portal, query),
    dataset: (ctx, portal, id) => datasetById(ctx, key, portal, id),
  };
}

async function searchDatasets(ctx: Ctx, key: string | undefined, portal: Portal, query: string) {
  const { response, results } = await searchPage(ctx, key, portal, query);
  return {
    search: { totalCount: null, items: results.map(normaliseDatagovResult), source: response.url },
    recordedSample: response.recordedSample,
  };
}

async function datasetById(
  ctx: Ctx,
  key: string | undefined,
  portal: Portal,
  id: string,
): Promise<DatasetLookup> {
  const { response, results } = await searchPage(ctx, key, portal, id);
  const match = results.find((r) => r.slug === id || r.identifier === id);
  if (!match) return { found: false };
  return {
    found: true,
    dataset: normaliseDatagovDetail(match),
    apiUrl: response.url,
    recordedSample: response.recordedSample,
  };
}
