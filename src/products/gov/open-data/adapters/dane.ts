// dane.gov.pl, Poland's open-data portal, API 1.4 (JSON:API): `GET {base}/datasets?q=…&page=1&per_page=20
// &include=institution` for a keyword search (`data[]` of `{id, type: "dataset", attributes, relationships}`,
// the total in `meta.count`, the publishing institutions sideloaded in `included[]`) and
// `GET {base}/datasets/{id}?include=institution` for one dataset. Errors are JSON:API `errors[]`.
//
// Sources: the API spec https://api.dane.gov.pl/1.4/spec and docs
// https://api.dane.gov.pl/doc; public clients reading `attributes.title`, `notes`, `license_name`,
// `modified`, `created`, `keywords`, `categories`, `relationships.institution`, `relationships.resources.
// meta.count` and `links.related`, and the portal's own API feature tests (`/1.4/datasets/{id}` →
// `data.attributes…`). Answers follow Accept-Language (pl, en): we ask for Polish. No key and no published
// rate limit: one request at a time, half a second apart. Each dataset states its own licence
// (`license_name`, e.g. CC0 1.0 or CC BY 4.0); the catalogue is public sector information under Poland's
// open-data act (ustawa o otwartych danych, 2021).
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
import { readJson } from "./read-json.ts";

interface JsonApiRef {
  id?: string | number;
  type?: string;
}

export interface DaneDataset {
  id?: string | number;
  type?: string;
  attributes?: {
    title?: unknown;
    notes?: unknown;
    slug?: string;
    modified?: string | null;
    created?: string | null;
    keywords?: unknown;
    license_name?: string | null;
    license_url?: string | null;
  };
  relationships?: {
    institution?: { data?: JsonApiRef | null };
    resources?: { meta?: { count?: number } };
  };
}

export interface DaneIncluded {
  id?: string | number;
  type?: string;
  attributes?: { title?: unknown; slug?: string };
}

export interface DaneResource {
  id?: string | number;
  attributes?: { title?: unknown; format?: string | null; file_url?: string | null; link?: string | null };
}

interface DaneDocument<T> {
  data?: T;
  included?: DaneIncluded[];
  meta?: { count?: number };
  errors?: Array<{ status?: string; title?: string; detail?: string; code?: string }>;
}

function institutionName(dataset: DaneDataset, included: DaneIncluded[], languages: readonly string[]) {
  const ref = dataset.relationships?.institution?.data;
  if (!ref) return null;
  const found = included.find((i) => i.type === "institution" && String(i.id) === String(ref.id));
  return pickLanguage(found?.attributes?.title, languages);
}

export function normaliseDaneDataset(
  dataset: DaneDataset,
  included: DaneIncluded[],
  portal: Pick<Portal, "languages">,
): DatasetItemBody {
  const id = String(dataset.id ?? "");
  const attributes = dataset.attributes ?? {};
  const slug = attributes.slug ? `,${attributes.slug}` : "";
  return {
    id,
    title: pickLanguage(attributes.title, portal.languages) ?? id,
    organization: institutionName(dataset, included, portal.languages),
    modified: isoTimestamp(attributes.modified ?? attributes.created),
    resourceCount: dataset.relationships?.resources?.meta?.count ?? 0,
    sourceUrl: `https://dane.gov.pl/pl/dataset/${id}${slug}`,
    dataLicence: attributes.license_name
      ? { id: null, title: attributes.license_name, url: attributes.license_url ?? null }
      : null,
  };
}

function keywordsOf(value: unknown, languages: readonly string[]): string[] {
  if (Array.isArray(value)) return value.filter((k): k is string => typeof k === "string");
  // A translated list {pl: [...], en: [...]}, where the API sends one.
  if (value && typeof value === "object") {
    const lists = value as Record<string, unknown>;
    for (const language of [...languages, ...Object.keys(lists)]) {
      const list = lists[language];
      if (Array.isArray(list) && list.length > 0)
        return list.filter((k): k is string => typeof k === "string");
    }
  }
  return [];
}

export function normaliseDaneDetail(
  dataset: DaneDataset,
  included: DaneIncluded[],
  resources: DaneResource[],
  portal: Pick<Portal, "languages">,
): DatasetDetailBody {
  const item = normaliseDaneDataset(dataset, included, portal);
  return {
    ...item,
    resourceCount: Math.max(item.resourceCount, resources.length),
    description: pickLanguage(dataset.attributes?.notes, portal.languages),
    keywords: keywordsOf(dataset.attributes?.keywords, portal.languages),
    resources: resources.slice(0, MAX_RESOURCES).map((r) => ({
      name: pickLanguage(r.attributes?.title, portal.languages),
      format: r.attributes?.format || null,
      url: r.attributes?.file_url || r.attributes?.link || null,
    })),
  };
}

function failure(portal: Portal, what: string, status: number, doc: DaneDocument<unknown>): UpstreamError {
  const error = doc.errors?.[0];
  const reason = error?.detail ?? error?.title ?? `HTTP ${status}`;
  return new UpstreamError(portal.upstream.name, `${what} failed: ${reason}`, status);
}

const HEADERS = { accept: "application/vnd.api+json, application/json", "accept-language": "pl" };

export const daneAdapter: PortalAdapter = {
  async search(ctx: Ctx, portal: Portal, query: string) {
    const client = ctx.upstreams.client(portal.upstream);
    const response = await client.get({
      path: "/datasets",
      query: { q: query, page: 1, per_page: PAGE_SIZE, include: "institution" },
      headers: HEADERS,
    });
    const doc = readJson<DaneDocument<DaneDataset[]>>(portal, response);
    if (response.status !== 200 || !Array.isArray(doc.data))
      throw failure(portal, "search", response.status, doc);
    const included = doc.included ?? [];
    return {
      search: {
        totalCount: doc.meta?.count ?? null,
        items: doc.data.map((d) => normaliseDaneDataset(d, included, portal)),
        source: response.url,
      },
      recordedSample: response.recordedSample,
    };
  },

  async dataset(ctx: Ctx, portal: Portal, id: string): Promise<DatasetLookup> {
    const client = ctx.upstreams.client(portal.upstream);
    const response = await client.get({
      path: `/datasets/${encodeURIComponent(id)}`,
      query: { include: "institution" },
      headers: HEADERS,
    });
    if (response.status === 404) return { found: false };
    const doc = readJson<DaneDocument<DaneDataset>>(portal, response);
    if (response.status !== 200 || !doc.data?.id) throw failure(portal, "dataset", response.status, doc);
    // The resources are a related collection of their own.
    const listed = await client.get({
      path: `/datasets/${encodeURIComponent(id)}/resources`,
      query: { page: 1, per_page: MAX_RESOURCES },
      headers: HEADERS,
    });
    const resources = readJson<DaneDocument<DaneResource[]>>(portal, listed);
    if (listed.status !== 200 || !Array.isArray(resources.data)) {
      throw failure(portal, "resources", listed.status, resources);
    }
    return {
      found: true,
      dataset: normaliseDaneDetail(doc.data, doc.included ?? [], resources.data, portal),
      apiUrl: response.url,
      recordedSample: response.recordedSample,
    };
  },
};
