// piveau hub-search, the search service of data.europa.eu and (since its 2025 relaunch) of data.gv.at:
// `GET {base}/search?q=…&filter=dataset&limit=20&page=0` for a keyword search and `GET {base}/datasets/{id}`
// for one dataset. Both answer `{"success": true, "result": …}`; a search result is `{count, results}`.
//
// Sources: the portals' answers (the eu and at shape, the at relaunch and the 404 of the old CKAN
// path); the hub-search OpenAPI (piveau-data/piveau-hub-search, webroot/openapi.yaml, also served at
// https://www.data.gv.at/api/hub/search/): `filter` dataset|catalogue, `limit` ≤ 1000, `page` from 0,
// GET /datasets/{id} → 200 `{success, result}` or 404 `{success: false, message}`; its older schema names
// `licence`, `download_urls`, `modification_date`, `release_date`, format `{id, title}`; public clients of
// both portals read the current names (`license {id, label, resource}`, `access_url[]`, `download_url[]`,
// `modified`, `issued`): both are read. Titles are language maps; there is no resource count, so
// distributions are counted. No published rate limit and no key: one request at a time,
// half a second apart. data.europa.eu metadata is CC0; data.gv.at metadata is published as OGD (CC BY 4.0).
import { UpstreamError } from "../../../../upstream/client.ts";
import { type DatasetDetailBody, type DatasetItemBody, isoTimestamp, pickLanguage } from "../dataset.ts";
import {
  type Ctx,
  type DatasetLookup,
  MAX_RESOURCES,
  PAGE_SIZE,
  type Portal,
  type PortalAdapter,
} from "../portal.ts";
import { firstString, readJson } from "./read-json.ts";

interface PiveauRef {
  id?: string;
  label?: unknown;
  title?: unknown;
  resource?: string;
}

interface PiveauDistribution {
  id?: string;
  title?: unknown;
  format?: PiveauRef | string | null;
  license?: PiveauRef | string | null;
  licence?: PiveauRef | string | null;
  access_url?: unknown;
  download_url?: unknown;
  download_urls?: unknown;
}

export interface PiveauDataset {
  id?: string;
  title?: unknown;
  description?: unknown;
  catalog?: { id?: string; title?: unknown } | null;
  publisher?: { name?: unknown } | null;
  modified?: string | null;
  modification_date?: string | null;
  issued?: string | null;
  release_date?: string | null;
  distributions?: PiveauDistribution[] | null;
  keywords?: Array<{ id?: string; label?: string; language?: string }> | null;
}

interface PiveauEnvelope<T> {
  success?: boolean;
  result?: T;
  message?: string;
}

interface PiveauPortalOptions {
  /** The dataset's page on the portal. */
  datasetPage: (id: string) => string;
}

function licenceOf(distributions: PiveauDistribution[], languages: readonly string[]) {
  for (const distribution of distributions) {
    const licence = distribution.license ?? distribution.licence;
    if (!licence) continue;
    if (typeof licence === "string") return { id: null, title: null, url: licence };
    if (licence.id || licence.resource || licence.label || licence.title) {
      return {
        id: licence.id ?? null,
        title: pickLanguage(licence.label ?? licence.title, languages),
        url: licence.resource ?? null,
      };
    }
  }
  return null;
}

export function normalisePiveauDataset(
  dataset: PiveauDataset,
  portal: Pick<Portal, "languages">,
  options: PiveauPortalOptions,
): DatasetItemBody {
  const id = dataset.id ?? "";
  const distributions = dataset.distributions ?? [];
  return {
    id,
    title: pickLanguage(dataset.title, portal.languages) ?? id,
    organization:
      pickLanguage(dataset.publisher?.name, portal.languages) ??
      pickLanguage(dataset.catalog?.title, portal.languages),
    modified: isoTimestamp(
      dataset.modified ?? dataset.modification_date ?? dataset.issued ?? dataset.release_date,
    ),
    resourceCount: distributions.length,
    sourceUrl: options.datasetPage(id),
    dataLicence: licenceOf(distributions, portal.languages),
  };
}

function formatOf(format: PiveauDistribution["format"], languages: readonly string[]): string | null {
  if (!format) return null;
  if (typeof format === "string") return format;
  return format.id ?? pickLanguage(format.label ?? format.title, languages);
}

export function normalisePiveauDetail(
  dataset: PiveauDataset,
  portal: Pick<Portal, "languages">,
  options: PiveauPortalOptions,
): DatasetDetailBody {
  const keywords = dataset.keywords ?? [];
  // Keywords carry their language: the portal's own first, the others after.
  const ranked = [...keywords].sort(
    (a, b) => rank(a.language, portal.languages) - rank(b.language, portal.languages),
  );
  return {
    ...normalisePiveauDataset(dataset, portal, options),
    description: pickLanguage(dataset.description, portal.languages),
    keywords: [...new Set(ranked.map((k) => k.label ?? k.id).filter((k): k is string => Boolean(k)))],
    resources: (dataset.distributions ?? []).slice(0, MAX_RESOURCES).map((d) => ({
      name: pickLanguage(d.title, portal.languages),
      format: formatOf(d.format, portal.languages),
      url: firstString(d.download_url) ?? firstString(d.download_urls) ?? firstString(d.access_url),
    })),
  };
}

function rank(language: string | undefined, languages: readonly string[]): number {
  const index = language ? languages.indexOf(language) : -1;
  return index === -1 ? languages.length : index;
}

function failure(portal: Portal, what: string, status: number, message: string | undefined): UpstreamError {
  return new UpstreamError(portal.upstream.name, `${what} failed: ${message ?? `HTTP ${status}`}`, status);
}

export function piveauAdapter(options: PiveauPortalOptions): PortalAdapter {
  return {
    async search(ctx: Ctx, portal: Portal, query: string) {
      const client = ctx.upstreams.client(portal.upstream);
      const response = await client.get({
        path: "/search",
        query: { q: query, filter: "dataset", limit: PAGE_SIZE, page: 0 },
        headers: { accept: "application/json" },
      });
      const envelope = readJson<PiveauEnvelope<{ count?: number; results?: PiveauDataset[] }>>(
        portal,
        response,
      );
      if (response.status !== 200 || envelope.success === false || !envelope.result) {
        throw failure(portal, "search", response.status, envelope.message);
      }
      return {
        search: {
          totalCount: envelope.result.count ?? null,
          items: (envelope.result.results ?? []).map((d) => normalisePiveauDataset(d, portal, options)),
          source: response.url,
        },
        recordedSample: response.recordedSample,
      };
    },

    async dataset(ctx: Ctx, portal: Portal, id: string): Promise<DatasetLookup> {
      const client = ctx.upstreams.client(portal.upstream);
      const response = await client.get({
        path: `/datasets/${encodeURIComponent(id)}`,
        headers: { accept: "application/json" },
      });
      if (response.status === 404) return { found: false };
      const envelope = readJson<PiveauEnvelope<PiveauDataset>>(portal, response);
      if (response.status !== 200 || envelope.success === false || !envelope.result?.id) {
        throw failure(portal, "dataset", response.status, envelope.message);
      }
      return {
        found: true,
        dataset: normalisePiveauDetail(envelope.result, portal, options),
        apiUrl: response.url,
        recordedSample: response.recordedSample,
      };
    },
  };
}
