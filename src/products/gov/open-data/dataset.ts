// What every open-data route answers: a keyword search over one national portal's catalogue, or
// one dataset by id. The portal's own metadata licence comes with every answer; each dataset's data licence
// is passed through as the portal gives it.
import { z } from "zod";
import type { CachedDocument } from "../../../store/cache.ts";
import { GOV_ENVELOPE_REQUIRED, govEnvelope, govEnvelopeShape } from "../shared/envelope.ts";
import type { GovRouteInfo } from "../shared/gov-product.ts";
import { LicenceSchema } from "../shared/licences.ts";
import { queryHash } from "../shared/query.ts";

const DataLicence = z
  .object({
    id: z.string().nullable().describe("The portal's licence id, e.g. cc-by-4.0 or lov2"),
    title: z.string().nullable().describe("The licence's name as the portal gives it"),
    url: z.string().nullable().describe("The licence's URL, where the portal gives one"),
  })
  .describe("The dataset's own data licence, passed through unchanged");

const DatasetItemShape = {
  id: z.string().describe("The dataset's id on the portal; give it as `id` to fetch the dataset"),
  title: z.string().describe("Title in the country's language, else English, else the first given"),
  organization: z.string().nullable().describe("Publishing organisation, in the same language rule"),
  modified: z.string().nullable().describe("When the metadata was last modified (ISO 8601), where known"),
  resourceCount: z.number().int().nonnegative().describe("Resources (files, APIs) the dataset lists"),
  sourceUrl: z.url().describe("The dataset's page on the portal"),
  dataLicence: DataLicence.nullable(),
  // Canada (bilingual) and Germany add the CKAN package id and slug.
  packageId: z.string().optional().describe("CA, DE: the CKAN package id"),
  name: z.string().optional().describe("CA, DE: the CKAN package name (slug)"),
  titleEn: z.string().nullable().optional().describe("CA: English title"),
  titleFr: z.string().nullable().optional().describe("CA: French title"),
  // The US catalog holds federal, state, county, city, tribal, university and non-profit records.
  publisherType: z
    .string()
    .nullable()
    .optional()
    .describe(
      "US: the publisher's type on data.gov (Federal Government, State Government, County Government, City " +
        "Government, Tribal, University, Non-Profit); null where not given",
    ),
  licenceNote: z
    .string()
    .optional()
    .describe(
      "US: what is known of the record's licence: a federal agency's record is a US government work; any " +
        "other publisher's is not, and the record's own licence (dataLicence) or the publisher's terms apply",
    ),
};

const DatasetItem = z.object(DatasetItemShape);
export type DatasetItemBody = z.infer<typeof DatasetItem>;

const DatasetResource = z.object({
  name: z.string().nullable(),
  format: z.string().nullable().describe("File format as the portal labels it (CSV, JSON, …)"),
  url: z.string().nullable().describe("Download or access URL"),
});

/** One dataset in full: the search fields plus its description, keywords and resources. */
const DatasetDetailShape = {
  ...DatasetItemShape,
  description: z.string().nullable(),
  keywords: z.array(z.string()),
  resources: z.array(DatasetResource).describe("The dataset's resources (at most 100)"),
};
export type DatasetDetailBody = z.infer<z.ZodObject<typeof DatasetDetailShape>>;

export interface PortalSearch {
  totalCount: number | null;
  items: DatasetItemBody[];
  /** The portal URL searched. */
  source: string;
}

export interface StoredDataset {
  dataset: DatasetDetailBody;
  apiUrl: string;
}

export function openDataAnswer() {
  return z
    .object({
      ...govEnvelopeShape("open_data"),
      licence: LicenceSchema.describe("The portal's metadata licence"),
      query: z.string().describe("The query as searched: NFC, trimmed, spaces collapsed"),
      hash: z.string().describe("Short stable hash of the normalised query"),
      count: z.number().int().nonnegative(),
      totalCount: z
        .number()
        .int()
        .nonnegative()
        .nullable()
        .describe("All matches; null where the portal gives none"),
      match: z.boolean(),
      message: z.string().optional().describe("Present when there are no hits"),
      items: z.array(DatasetItem),
      found: z.literal(true).describe("On single-dataset answers"),
      ...DatasetDetailShape,
    })
    .partial()
    .required(GOV_ENVELOPE_REQUIRED)
    .describe("q: a keyword search (query … items); id: one dataset (found, id … resources)");
}

export function searchAnswer(info: GovRouteInfo, query: string, doc: CachedDocument<PortalSearch>) {
  const { body } = doc;
  const match = body.items.length > 0;
  return {
    ...govEnvelope("open_data", info, body.source, doc.fetchedAt, doc.recordedSample),
    query,
    hash: queryHash(query),
    count: body.items.length,
    totalCount: body.totalCount,
    match,
    ...(match ? {} : { message: `No dataset on ${info.upstream} matches "${query}".` }),
    items: body.items,
  };
}

export function datasetAnswer(info: GovRouteInfo, doc: CachedDocument<StoredDataset>) {
  return {
    ...govEnvelope("open_data", info, doc.body.apiUrl, doc.fetchedAt, doc.recordedSample),
    found: true as const,
    ...doc.body.dataset,
  };
}

/** A text in the first of `languages` the value has; a plain string as it is; never an object. */
export function pickLanguage(value: unknown, languages: readonly string[]): string | null {
  if (typeof value === "string") return value.trim() === "" ? null : value;
  if (!value || typeof value !== "object") return null;
  const texts = value as Record<string, unknown>;
  for (const language of [...languages, ...Object.keys(texts)]) {
    const text = texts[language];
    if (typeof text === "string" && text.trim() !== "") return text;
  }
  return null;
}

/** A timestamp as ISO 8601 UTC; portals that give none assume UTC (CKAN). Unparseable → null. */
export function isoTimestamp(value: unknown): string | null {
  if (typeof value !== "string" || value.trim() === "") return null;
  const text = /[zZ]|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
