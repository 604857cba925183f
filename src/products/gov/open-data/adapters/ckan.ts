// CKAN's Action API v3: `package_search` for keyword searches and `package_show` for one dataset, as
// data.gov.au, open.canada.ca, opendata.swiss, GovData, data.gov.uk and the e-Gov data portal serve it.
//
// Sources: CKAN API guide (docs.ckan.org/en/latest/api/: package_search q/rows/start, result.count and
// result.results; package_show id; errors as {"success": false, "error": {"__type", "message"}} with 404 for
// "Not Found Error" and 409 for validation and search-query errors); the portals' own
// quirks (data.gov.au only under /data/, e-Gov without /3/, opendata.swiss
// multilingual objects with organization.title as an object or a JSON string, open.canada.ca
// title_translated {en, fr}). No published rate limits: one request at a time, half a second apart.
// e-Gov (jp) departs from CKAN's usual package: a field inventory of 20 real package_search results shows
// license_id and license_title always null on the package, the licence on each resource (license_id,
// terms_and_conditions) and the publisher's name as package text (`publisher`, 公表組織名); so a package
// without a licence takes its resources', and one without an organisation its `publisher`.
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

interface CkanPortalOptions {
  /** The dataset's page on the portal, from the package. */
  datasetPage: (pkg: CkanPackage) => string;
  /** CA and DE answers carry the package id and slug besides the id. */
  packageFields?: "bilingual" | "slug";
}

export interface CkanPackage {
  id?: string;
  name?: string;
  title?: unknown;
  title_translated?: unknown;
  notes?: unknown;
  description?: unknown;
  notes_translated?: unknown;
  metadata_modified?: string;
  num_resources?: number;
  license_id?: string | null;
  license_title?: string | null;
  license_url?: string | null;
  organization?: { name?: string; title?: unknown; title_translated?: unknown } | null;
  /** e-Gov: the publishing organisation's name as text (公表組織名). */
  publisher?: unknown;
  resources?: CkanResource[];
  tags?: Array<{ name?: string; display_name?: string }>;
  keywords?: unknown;
}

interface CkanResource {
  name?: unknown;
  format?: string | null;
  url?: string | null;
  /** e-Gov: the licence sits on each resource, not on the package. */
  license_id?: string | null;
  license_title?: string | null;
  /** e-Gov: the resource's terms of use (利用規約), text or a URL. */
  terms_and_conditions?: string | null;
}

interface CkanEnvelope<T> {
  success?: boolean;
  result?: T;
  error?: { __type?: string; message?: string };
}

/** opendata.swiss sometimes embeds organization.title as a JSON-encoded object: decode it then. */
function decodeMaybeJson(value: unknown): unknown {
  if (typeof value !== "string" || !value.startsWith("{")) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function organizationOf(pkg: CkanPackage, languages: readonly string[]): string | null {
  const org = pkg.organization;
  const named = org
    ? (pickLanguage(org.title_translated ?? decodeMaybeJson(org.title), languages) ?? org.name ?? null)
    : null;
  // e-Gov: the package's own publisher text when it has no organisation.
  return named ?? pickLanguage(pkg.publisher, languages);
}

const nonEmpty = (value: string | null | undefined): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null;

/**
 * The package's licence; where the package names none (e-Gov: license_id null), the one its resources name: one
 * licence when they agree, otherwise "varies by resource" with each one listed.
 */
function dataLicenceOf(pkg: CkanPackage): DatasetItemBody["dataLicence"] {
  if (nonEmpty(pkg.license_id) || nonEmpty(pkg.license_title)) {
    return {
      id: nonEmpty(pkg.license_id),
      title: nonEmpty(pkg.license_title),
      url: nonEmpty(pkg.license_url),
    };
  }
  const named = (pkg.resources ?? []).filter((r) => nonEmpty(r.license_id) || nonEmpty(r.license_title));
  const ids = [...new Set(named.map((r) => nonEmpty(r.license_id) ?? nonEmpty(r.license_title)))];
  const first = named[0];
  if (!first) return null;
  if (ids.length > 1) {
    return { id: null, title: `varies by resource: ${ids.join(", ")}`, url: null };
  }
  const terms = nonEmpty(first.terms_and_conditions);
  return {
    id: nonEmpty(first.license_id),
    title: nonEmpty(first.license_title) ?? (terms && !/^https?:\/\//.test(terms) ? terms : null),
    url: terms && /^https?:\/\//.test(terms) ? terms : null,
  };
}

/** open.canada.ca organisation titles read "English | Français": keep the half in the preferred language. */
function bilingualHalf(text: string | null, languages: readonly string[]): string | null {
  if (!text?.includes(" | ")) return text;
  const [en, fr] = text.split(" | ");
  return (languages[0] === "fr" ? fr : en)?.trim() || text;
}

export function normaliseCkanPackage(
  pkg: CkanPackage,
  portal: Pick<Portal, "languages">,
  options: CkanPortalOptions,
): DatasetItemBody {
  const id = pkg.id ?? pkg.name ?? "";
  const titles = pkg.title_translated ?? pkg.title;
  const item: DatasetItemBody = {
    id,
    title: pickLanguage(titles, portal.languages) ?? pkg.name ?? id,
    organization: bilingualHalf(organizationOf(pkg, portal.languages), portal.languages),
    modified: isoTimestamp(pkg.metadata_modified),
    resourceCount: pkg.num_resources ?? pkg.resources?.length ?? 0,
    sourceUrl: options.datasetPage(pkg),
    dataLicence: dataLicenceOf(pkg),
  };
  if (options.packageFields === "bilingual") {
    return {
      ...item,
      packageId: id,
      name: pkg.name ?? id,
      titleEn: pickLanguage(titles, ["en"]),
      titleFr: pickLanguage(titles, ["fr"]),
    };
  }
  if (options.packageFields === "slug") return { ...item, packageId: id, name: pkg.name ?? id };
  return item;
}

function keywordsOf(pkg: CkanPackage, languages: readonly string[]): string[] {
  const tags = (pkg.tags ?? []).map((t) => t.display_name ?? t.name).filter((t): t is string => Boolean(t));
  if (tags.length > 0) return tags;
  // opendata.swiss: keywords per language {"de": [...], "fr": [...]}.
  const keywords = pkg.keywords as Record<string, unknown> | undefined;
  if (keywords && typeof keywords === "object") {
    for (const language of [...languages, ...Object.keys(keywords)]) {
      const list = keywords[language];
      if (Array.isArray(list) && list.length > 0)
        return list.filter((k): k is string => typeof k === "string");
    }
  }
  return [];
}

export function normaliseCkanDetail(
  pkg: CkanPackage,
  portal: Pick<Portal, "languages">,
  options: CkanPortalOptions,
): DatasetDetailBody {
  return {
    ...normaliseCkanPackage(pkg, portal, options),
    description: pickLanguage(pkg.notes_translated ?? pkg.description ?? pkg.notes, portal.languages),
    keywords: keywordsOf(pkg, portal.languages),
    resources: (pkg.resources ?? []).slice(0, MAX_RESOURCES).map((r) => ({
      name: pickLanguage(r.name, portal.languages),
      format: r.format || null,
      url: r.url || null,
    })),
  };
}

function parseEnvelope<T>(portal: Portal, body: string, url: string): CkanEnvelope<T> {
  try {
    return JSON.parse(body) as CkanEnvelope<T>;
  } catch {
    // Maintenance pages and proxies answer HTML, sometimes with 200.
    throw new UpstreamError(
      portal.upstream.name,
      `not JSON from ${url}: ${body.slice(0, 80).replace(/\s+/g, " ")}`,
    );
  }
}

export function ckanAdapter(options: CkanPortalOptions): PortalAdapter {
  return {
    async search(ctx: Ctx, portal: Portal, query: string) {
      const client = ctx.upstreams.client(portal.upstream);
      const response = await client.get({ path: "/package_search", query: { q: query, rows: PAGE_SIZE } });
      const envelope = parseEnvelope<{ count?: number; results?: CkanPackage[] }>(
        portal,
        response.body,
        response.url,
      );
      if (response.status !== 200 || envelope.success !== true || !envelope.result) {
        const reason = envelope.error?.message ?? envelope.error?.__type ?? `HTTP ${response.status}`;
        throw new UpstreamError(portal.upstream.name, `search failed: ${reason}`, response.status);
      }
      const results = envelope.result.results ?? [];
      return {
        search: {
          totalCount: envelope.result.count ?? null,
          items: results.map((pkg) => normaliseCkanPackage(pkg, portal, options)),
          source: response.url,
        },
        recordedSample: response.recordedSample,
      };
    },

    async dataset(ctx: Ctx, portal: Portal, id: string): Promise<DatasetLookup> {
      const client = ctx.upstreams.client(portal.upstream);
      const response = await client.get({ path: "/package_show", query: { id } });
      const envelope = parseEnvelope<CkanPackage>(portal, response.body, response.url);
      if (response.status === 404 || envelope.error?.__type === "Not Found Error") return { found: false };
      if (response.status !== 200 || envelope.success !== true || !envelope.result) {
        const reason = envelope.error?.message ?? envelope.error?.__type ?? `HTTP ${response.status}`;
        throw new UpstreamError(portal.upstream.name, `package_show failed: ${reason}`, response.status);
      }
      return {
        found: true,
        dataset: normaliseCkanDetail(envelope.result, portal, options),
        apiUrl: response.url,
        recordedSample: response.recordedSample,
      };
    },
  };
}
