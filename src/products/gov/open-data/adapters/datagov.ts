// catalog.data.gov's own search API (the Flask/OpenSearch catalog that replaced CKAN in 2025):
// `GET {base}/search?q=…&per_page=20` answers `{after, sort, results[]}`: cursor paging (`after`, absent on
// the last page) and NO total, so totalCount is null. There is no single-dataset endpoint: a dataset id (its
// slug or DCAT identifier) is looked up with the same search and an exact match on `slug` or `identifier`.
//
// Sources: shared/reference/upstreams-gov.md B-us; the official Catalog API documentation (GSA
// resources.data.gov, pages/catalog-api.md: parameters q, per_page, sort, org_slug, after; result fields
// title, description, identifier, slug, publisher, organization {name, slug}, distribution_titles,
// last_harvested_date, dcat {modified, license, distribution[], keyword[]}; errors `{"error": …}`, 422 for
// invalid parameters). GSA moves this API behind api.data.gov (https://api.gsa.gov/technology/datagov/v4/,
// key in X-Api-Key, 1,000 requests an hour per key, DEMO_KEY 30 an hour): GOV_US_OPEN_DATA_BASE_URL moves it
// and GOV_US_OPEN_DATA_API_KEY, when set, is sent as X-Api-Key. Metadata: DCAT-US records of US government
// works, public domain; each dataset's own licence is `dcat.license` (a URL), passed through.

import { envString } from "../../../../config.ts";
import { UpstreamError } from "../../../../upstream/client.ts";
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
  organization?: { name?: string; slug?: string } | null;
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

export function normaliseDatagovResult(result: DatagovResult): DatasetItemBody {
  const id = idOf(result);
  const licence = result.dcat?.license;
  return {
    id,
    title: result.title ?? result.dcat?.title ?? id,
    organization: result.organization?.name ?? result.publisher ?? null,
    modified: isoTimestamp(result.dcat?.modified ?? result.last_harvested_date),
    resourceCount: result.distribution_titles?.length ?? result.dcat?.distribution?.length ?? 0,
    sourceUrl: `https://catalog.data.gov/dataset/${encodeURIComponent(id)}`,
    dataLicence: licence ? { id: null, title: null, url: licence } : null,
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
  const error = page.error as { message?: string } | string | undefined;
  if (typeof error === "string") return error;
  return error?.message ?? page.message ?? `HTTP ${status}`;
}

async function searchPage(ctx: Ctx, portal: Portal, query: string) {
  const client = ctx.upstreams.client(portal.upstream);
  const key = envString(ctx.config.env, DATAGOV_API_KEY_SETTING);
  const response = await client.get({
    path: "/search",
    query: { q: query, per_page: PAGE_SIZE },
    headers: { accept: "application/json", ...(key ? { "x-api-key": key } : {}) },
  });
  const page = readJson<DatagovPage>(portal, response);
  if (response.status !== 200 || !Array.isArray(page.results)) {
    throw new UpstreamError(
      portal.upstream.name,
      `search failed: ${errorText(page, response.status)}`,
      response.status,
    );
  }
  return { response, results: page.results };
}

export const datagovAdapter: PortalAdapter = {
  async search(ctx: Ctx, portal: Portal, query: string) {
    const { response, results } = await searchPage(ctx, portal, query);
    return {
      search: { totalCount: null, items: results.map(normaliseDatagovResult), source: response.url },
      recordedSample: response.recordedSample,
    };
  },

  async dataset(ctx: Ctx, portal: Portal, id: string): Promise<DatasetLookup> {
    const { response, results } = await searchPage(ctx, portal, id);
    const match = results.find((r) => r.slug === id || r.identifier === id);
    if (!match) return { found: false };
    return {
      found: true,
      dataset: normaliseDatagovDetail(match),
      apiUrl: response.url,
      recordedSample: response.recordedSample,
    };
  },
};
