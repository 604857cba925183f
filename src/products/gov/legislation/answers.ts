// What every legislation route answers: one act by id, or a title search; each country adds its
// extras. The envelope (sku, cc, country, family, fetchedAt, source, licence) is the same for all of /v1/gov.
import { z } from "zod";
import type { CachedDocument } from "../../../store/cache.ts";
import { GOV_ENVELOPE_REQUIRED, govEnvelope, govEnvelopeShape } from "../shared/envelope.ts";
import type { GovRouteInfo } from "../shared/gov-product.ts";

const IsoDate = z.string().describe("ISO 8601 date (YYYY-MM-DD)");

const LegislationDates = z
  .object({
    adopted: IsoDate.optional(),
    signed: IsoDate.optional(),
    published: IsoDate.optional(),
    registered: IsoDate.optional(),
    entryIntoForce: IsoDate.optional(),
    versionInForceFrom: IsoDate.optional(),
    validFrom: IsoDate.optional(),
    validAt: IsoDate.optional(),
    lastAmended: IsoDate.optional(),
    updated: IsoDate.optional(),
    endOfValidity: IsoDate.optional(),
    repealed: IsoDate.optional(),
  })
  .describe("Dates of the act; only the keys the upstream gives are present");

export type LegislationDatesBody = z.infer<typeof LegislationDates>;

/** The act fields a search item carries too. */
const ActSummaryShape = {
  id: z.string().describe("The act's official id in its country's scheme"),
  title: z.string().describe("Title in the country's language"),
  type: z.string().nullable().describe("Kind of act as the upstream names it (law, regulation, …)"),
  citation: z.string().nullable().describe("How the act is cited"),
  inForce: z
    .boolean()
    .nullable()
    .describe("In force: true or false by the country's rule, null when unknown"),
  status: z.string().nullable().describe("The upstream's status text"),
  dates: LegislationDates,
  sourceUrl: z.url().describe("The act's page at the official publisher"),
  eli: z.string().nullable().describe("European Legislation Identifier, where the act has one"),
};

const ActSummary = z.object(ActSummaryShape);
export type ActSummaryBody = z.infer<typeof ActSummary>;

/** A stored act: its summary fields, the upstream URL it was read from, and the country's extras. */
export type StoredAct<Extras = Record<string, unknown>> = ActSummaryBody & { apiUrl: string } & Extras;

const SearchShape = {
  query: z.string().describe("The query as searched: NFC, trimmed, spaces collapsed"),
  count: z.number().int().nonnegative().describe("Items in this answer"),
  totalCount: z.number().int().nonnegative().nullable().describe("All matches, where the source counts them"),
  match: z.boolean().describe("True when there are hits"),
  message: z.string().optional().describe("Present when there are no hits"),
};

/**
 * The one object the catalog declares for a legislation route: a single act (`found` … `apiUrl` and the
 * extras) or a search (`query` … `items`), both with the envelope.
 */
export function legislationAnswer(extras: z.ZodRawShape = {}, itemExtras: z.ZodRawShape = {}) {
  const item = z.object({ ...ActSummaryShape, ...itemExtras });
  return z
    .object({
      ...govEnvelopeShape("legislation"),
      found: z.literal(true).describe("On single-act answers"),
      ...ActSummaryShape,
      apiUrl: z.url().describe("The upstream API URL of the act"),
      ...extras,
      ...SearchShape,
      items: z.array(item).describe("Search hits, best first"),
    })
    .partial()
    .required(GOV_ENVELOPE_REQUIRED)
    .describe("id: one act (found … apiUrl and the country's extras); q: a title search (query … items)");
}

export function actAnswer<Extras>(info: GovRouteInfo, doc: CachedDocument<StoredAct<Extras>>) {
  return {
    ...govEnvelope("legislation", info, doc.body.apiUrl, doc.fetchedAt, doc.recordedSample),
    found: true as const,
    ...doc.body,
  };
}

export interface SearchResult<Item> {
  totalCount: number | null;
  items: Item[];
  /** The upstream URL searched (or our index's source). */
  source: string;
}

export function searchAnswer<Item>(
  info: GovRouteInfo,
  query: string,
  result: SearchResult<Item>,
  fetchedAt: string,
  recordedSample: boolean,
) {
  const match = result.items.length > 0;
  return {
    ...govEnvelope("legislation", info, result.source, fetchedAt, recordedSample),
    query,
    count: result.items.length,
    totalCount: result.totalCount,
    match,
    ...(match ? {} : { message: `No act of ${info.country} matches "${query}".` }),
    items: result.items,
  };
}
