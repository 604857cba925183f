// What every company-register route answers: one company by its register number, or a name search
// (France: `query`, `count`, `totalCount`, `items`); each country adds its extras. Company-level facts only:
// no directors, shareholders or other persons. The envelope (sku, cc, country, family, source, fetchedAt,
// licence) is the one all of /v1/gov shares.
import { z } from "zod";
import type { CachedDocument } from "../../../store/cache.ts";
import type { GovRouteInfo } from "../shared/gov-product.ts";
import { govSku } from "../shared/gov-product.ts";
import { LicenceSchema, withSampleNotice } from "../shared/licences.ts";

export const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe("ISO 8601 date (YYYY-MM-DD)");

export const UkAddress = z
  .object({
    line1: z.string().nullable(),
    line2: z.string().nullable(),
    locality: z.string().nullable(),
    region: z.string().nullable(),
    postalCode: z.string().nullable(),
    country: z.string().nullable(),
  })
  .describe("UK: the registered office address as Companies House holds it");

/** The company fields every country gives, on single answers and on search items alike. */
const CompanyCommonShape = {
  id: z.string().describe("The company's number in its register (SIREN, IČO, company number, …)"),
  name: z.string().describe("Current registered name"),
  legalForm: z
    .string()
    .nullable()
    .describe("Legal form: the register's code (FR: INSEE catégorie juridique) or its text"),
  status: z.string().nullable().describe("The register's status text or code"),
  active: z
    .boolean()
    .nullable()
    .describe("True while the company exists and trades; null when the register does not say"),
  address: z
    .union([z.string(), UkAddress])
    .nullable()
    .describe("Registered address: one line (UK: an object of lines)"),
  created: IsoDate.nullable().describe("Date of incorporation or registration"),
  sourceUrl: z.url().describe("The company's page at the register (or its API URL where it has no page)"),
};

const CompanyCommon = z.object(CompanyCommonShape);
export type CompanyCommonBody = z.infer<typeof CompanyCommon>;

/** A stored company: the common fields, the country's extras, and the upstream URL it was read from. */
export type StoredCompany<Extras = Record<string, unknown>> = CompanyCommonBody & { apiUrl: string } & Extras;

export interface CompanySearch<Item> {
  totalCount: number | null;
  /** The register stops counting at totalCount: there are at least that many matches. */
  totalCountIsLowerBound?: boolean;
  items: Item[];
  /** The upstream URL searched. */
  source: string;
  /**
   * The register refused the query as its user's to fix (too broad a name): the route answers 400, not
   * charged, and the register counts as having answered.
   */
  refused?: { parameter: string; message: string };
}

/** A name search the register refused as too broad: the buyer is told to give more of `q`. */
export function tooBroadSearch<Item>(
  response: { url: string; recordedSample: boolean },
  message: string,
): { search: CompanySearch<Item>; recordedSample: boolean } {
  return {
    search: { totalCount: null, items: [], source: response.url, refused: { parameter: "q", message } },
    recordedSample: response.recordedSample,
  };
}

type AnswerFamily = "companies" | "accounts";

const RequiredEnvelope = {
  sku: true,
  cc: true,
  country: true,
  family: true,
  source: true,
  fetchedAt: true,
  licence: true,
} as const;

function envelopeShape(family: AnswerFamily) {
  return {
    sku: z.string().describe(`Product id, gov.<cc>.${family}`),
    cc: z.string().describe("Lower-case country code"),
    country: z.string().describe("Country name in English"),
    family: z.literal(family),
    source: z.url().describe("The upstream URL this answer was read from"),
    fetchedAt: z.iso.datetime().describe("When the upstream was read"),
    licence: LicenceSchema,
  };
}

/**
 * The one object a company route declares: a single company (`found` … and the country's extras) or a name
 * search (`query` … `items`), both with the envelope.
 */
export function companyAnswer<
  E extends z.ZodRawShape = Record<never, never>,
  I extends z.ZodRawShape = Record<never, never>,
>(extras: E = {} as E, itemExtras: I = {} as I) {
  const item = z.object({ ...CompanyCommonShape, ...itemExtras });
  return z
    .object({
      ...envelopeShape("companies"),
      found: z.literal(true).describe("On single-company answers"),
      ...CompanyCommonShape,
      ...extras,
      query: z.string().describe("The name searched: NFC, trimmed, spaces collapsed"),
      count: z.number().int().nonnegative().describe("Items in this answer"),
      totalCount: z.number().int().nonnegative().nullable().describe("All matches the register counts"),
      totalCountIsLowerBound: z
        .literal(true)
        .optional()
        .describe(
          "Present (true) when the register stops counting at totalCount: there are at least that many " +
            "matches (FR: total_results stops at 10,000)",
        ),
      match: z.boolean().describe("True when there are hits"),
      message: z.string().optional().describe("Present when there are no hits"),
      items: z.array(item).describe("Matching companies, best first"),
    })
    .partial()
    .required(RequiredEnvelope)
    .describe("id: one company (found … and the country's extras); q: a name search (query … items)");
}

/** An id-only answer that is not a company profile (Slovak annual accounts). */
export function accountsAnswer<S extends z.ZodRawShape>(shape: S) {
  return z
    .object({ ...envelopeShape("accounts"), found: z.literal(true), ...shape })
    .describe("One company's filed annual accounts");
}

function envelope(info: GovRouteInfo, source: string, fetchedAt: string, recordedSample: boolean) {
  return {
    sku: govSku(info.cc, info.family),
    cc: info.cc,
    country: info.country,
    family: info.family as AnswerFamily,
    source,
    fetchedAt,
    licence: withSampleNotice(info.licence, recordedSample),
  };
}

export function singleAnswer<Extras>(info: GovRouteInfo, doc: CachedDocument<StoredCompany<Extras>>) {
  const { apiUrl, ...company } = doc.body;
  return { ...envelope(info, apiUrl, doc.fetchedAt, doc.recordedSample), found: true as const, ...company };
}

export function searchAnswer<Item>(
  info: GovRouteInfo,
  query: string,
  doc: CachedDocument<CompanySearch<Item>>,
) {
  const { body } = doc;
  const match = body.items.length > 0;
  return {
    ...envelope(info, body.source, doc.fetchedAt, doc.recordedSample),
    query,
    count: body.items.length,
    totalCount: body.totalCount,
    ...(body.totalCountIsLowerBound ? { totalCountIsLowerBound: true as const } : {}),
    match,
    ...(match ? {} : { message: `No company in ${info.upstream} matches "${query}".` }),
    items: body.items,
  };
}

/** YYYY-MM-DD from an ISO date or timestamp; anything else → null. */
export function isoDate(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const match = /^(\d{4}-\d{2}-\d{2})/.exec(value.trim());
  return match ? (match[1] as string) : null;
}

/** Trimmed text, or null for absent, empty or non-string values. */
export function text(value: unknown): string | null {
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}
