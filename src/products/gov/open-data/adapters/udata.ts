// udata, the software of data.gouv.fr: `GET {base}/datasets/?q=…&page=1&page_size=20` for a keyword search
// (`{data, page, page_size, total, next_page, previous_page}`) and `GET {base}/datasets/{id-or-slug}/` for
// one dataset; 404 `{"message": …}` when it does not exist.
//
// Sources: the udata API reference (https://doc.data.gouv.fr/api/
// reference/, swagger https://www.data.gouv.fr/api/1/swagger.json); public clients' types of the page
// (`data`, `total`, `next_page`) and dataset (`id`, `title`, `slug`, `page`, `license`, `organization`
// {name} or null when a user owns the dataset, `owner`, `last_modified`, `resources[]`). Data licences are
// udata ids (lov2, odc-odbl, cc-by, …). data.gouv.fr asks for no key and the sources above publish no
// per-client limit: one request at a time, half a second apart.
// Metadata: Licence Ouverte / Open Licence 2.0.
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

/** udata's licence ids as data.gouv.fr lists them (GET /api/1/datasets/licenses/). */
const LICENCE_TITLES: Record<string, { title: string; url: string | null }> = {
  lov2: {
    title: "Licence Ouverte / Open Licence version 2.0",
    url: "https://www.etalab.gouv.fr/licence-ouverte-open-licence/",
  },
  "fr-lo": {
    title: "Licence Ouverte / Open Licence",
    url: "https://www.etalab.gouv.fr/wp-content/uploads/2014/05/Licence_Ouverte.pdf",
  },
  "odc-odbl": {
    title: "Open Data Commons Open Database License (ODbL)",
    url: "https://opendatacommons.org/licenses/odbl/",
  },
  "cc-by": { title: "Creative Commons Attribution", url: "https://creativecommons.org/licenses/by/4.0/" },
  "cc-by-sa": {
    title: "Creative Commons Attribution Share-Alike",
    url: "https://creativecommons.org/licenses/by-sa/4.0/",
  },
  "cc-zero": { title: "Creative Commons CCZero", url: "https://creativecommons.org/publicdomain/zero/1.0/" },
  "odc-pddl": {
    title: "Open Data Commons Public Domain Dedication and Licence (PDDL)",
    url: "https://opendatacommons.org/licenses/pddl/",
  },
  "odc-by": {
    title: "Open Data Commons Attribution License",
    url: "https://opendatacommons.org/licenses/by/",
  },
};

export interface UdataDataset {
  id?: string;
  title?: unknown;
  slug?: string;
  page?: string;
  description?: unknown;
  license?: string | null;
  organization?: { name?: string; slug?: string } | null;
  owner?: { first_name?: string; last_name?: string; slug?: string } | null;
  last_modified?: string | null;
  last_update?: string | null;
  created_at?: string | null;
  tags?: string[] | null;
  /** v1 lists the resources; newer servers may send a summary `{total, href}` instead. */
  resources?:
    | Array<{ title?: unknown; format?: string | null; url?: string | null }>
    | { total?: number }
    | null;
}

interface UdataPage {
  data?: UdataDataset[];
  total?: number;
  message?: string;
}

function ownerOf(dataset: UdataDataset): string | null {
  if (dataset.organization?.name) return dataset.organization.name;
  const owner = dataset.owner;
  const name = [owner?.first_name, owner?.last_name].filter(Boolean).join(" ");
  return name || null;
}

function resourceList(dataset: UdataDataset) {
  return Array.isArray(dataset.resources) ? dataset.resources : [];
}

export function normaliseUdataDataset(
  dataset: UdataDataset,
  portal: Pick<Portal, "languages">,
): DatasetItemBody {
  const id = dataset.id ?? dataset.slug ?? "";
  const resources = dataset.resources;
  const licence = dataset.license ? LICENCE_TITLES[dataset.license] : undefined;
  return {
    id,
    title: pickLanguage(dataset.title, portal.languages) ?? dataset.slug ?? id,
    organization: ownerOf(dataset),
    modified: isoTimestamp(dataset.last_modified ?? dataset.last_update ?? dataset.created_at),
    resourceCount: Array.isArray(resources) ? resources.length : (resources?.total ?? 0),
    sourceUrl: dataset.page ?? `https://www.data.gouv.fr/fr/datasets/${dataset.slug ?? id}/`,
    dataLicence: dataset.license
      ? { id: dataset.license, title: licence?.title ?? null, url: licence?.url ?? null }
      : null,
  };
}

export function normaliseUdataDetail(
  dataset: UdataDataset,
  portal: Pick<Portal, "languages">,
): DatasetDetailBody {
  return {
    ...normaliseUdataDataset(dataset, portal),
    description: pickLanguage(dataset.description, portal.languages),
    keywords: (dataset.tags ?? []).filter((t): t is string => typeof t === "string"),
    resources: resourceList(dataset)
      .slice(0, MAX_RESOURCES)
      .map((r) => ({
        name: pickLanguage(r.title, portal.languages),
        format: r.format || null,
        url: r.url || null,
      })),
  };
}

export const udataAdapter: PortalAdapter = {
  async search(ctx: Ctx, portal: Portal, query: string) {
    const client = ctx.upstreams.client(portal.upstream);
    const response = await client.get({
      path: "/datasets/",
      query: { q: query, page: 1, page_size: PAGE_SIZE },
      headers: { accept: "application/json" },
    });
    const page = readJson<UdataPage>(portal, response);
    if (response.status !== 200 || !Array.isArray(page.data)) {
      const reason = page.message ?? `HTTP ${response.status}`;
      throw new UpstreamError(portal.upstream.name, `search failed: ${reason}`, response.status);
    }
    return {
      search: {
        totalCount: page.total ?? null,
        items: page.data.map((d) => normaliseUdataDataset(d, portal)),
        source: response.url,
      },
      recordedSample: response.recordedSample,
    };
  },

  async dataset(ctx: Ctx, portal: Portal, id: string): Promise<DatasetLookup> {
    const client = ctx.upstreams.client(portal.upstream);
    const response = await client.get({
      path: `/datasets/${encodeURIComponent(id)}/`,
      headers: { accept: "application/json" },
    });
    // 410: deleted datasets.
    if (response.status === 404 || response.status === 410) return { found: false };
    const dataset = readJson<UdataDataset & { message?: string }>(portal, response);
    if (response.status !== 200 || !dataset.id) {
      const reason = dataset.message ?? `HTTP ${response.status}`;
      throw new UpstreamError(portal.upstream.name, `dataset failed: ${reason}`, response.status);
    }
    return {
      found: true,
      dataset: normaliseUdataDetail(dataset, portal),
      apiUrl: response.url,
      recordedSample: response.recordedSample,
    };
  },
};
