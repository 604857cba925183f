// Zefix PublicREST records as its OpenAPI (v2.7.2.3) types them: CompanyShort in searches, CompanyFull by UID
// (an array) or EHRA-ID (one object). The UID comes unformatted (CHE105829940); multilingual texts are
// {de, fr, it, en} objects; capitalNominal is a string and only present for corporations; keys the register
// has no value for are absent or null. Zefix holds no officers; audit companies and branch offices are not
// served either.
import { z } from "zod";
import { type CompanyCommonBody, IsoDate, isoDate, text } from "../answers.ts";
import { formatUid } from "./identifiers.ts";

interface Translated {
  de?: string | null;
  fr?: string | null;
  it?: string | null;
  en?: string | null;
}

export interface ZefixShort {
  name?: string | null;
  ehraid?: number | null;
  uid?: string | null;
  chid?: string | null;
  legalSeatId?: number | null;
  legalSeat?: string | null;
  registryOfCommerceId?: number | null;
  legalForm?: {
    id?: number;
    uid?: string | null;
    name?: Translated | null;
    shortName?: Translated | null;
  } | null;
  status?: string | null;
  sogcDate?: string | null;
  deletionDate?: string | null;
}

export interface ZefixFull extends ZefixShort {
  translation?: string[] | null;
  purpose?: string | null;
  address?: {
    organisation?: string | null;
    careOf?: string | null;
    street?: string | null;
    houseNumber?: string | null;
    addon?: string | null;
    poBox?: string | null;
    city?: string | null;
    swissZipCode?: string | null;
  } | null;
  canton?: string | null;
  capitalNominal?: string | null;
  capitalCurrency?: string | null;
  oldNames?: Array<{
    name?: string | null;
    sequenceNr?: number | null;
    translation?: string[] | null;
  }> | null;
  sogcPub?: Array<{
    sogcDate?: string | null;
    sogcId?: number | null;
    registryOfCommerceCanton?: string | null;
    mutationTypes?: Array<{ id?: number; key?: string | null }> | null;
  }> | null;
  cantonalExcerptWeb?: string | null;
  zefixDetailWeb?: Translated | null;
}

const STATUS_NOTES: Record<string, string> = {
  ACTIVE: "Entered in the commercial register.",
  BEING_CANCELLED: "Being cancelled (in liquidation): still entered in the commercial register.",
  CANCELLED: "Deleted from the commercial register.",
};

export const ChItemExtrasShape = {
  uid: z.string().nullable().describe("CH: the UID, CHE-123.456.789"),
  ehraid: z.number().int().nullable().describe("CH: Zefix's internal EHRA-ID (also accepted as id)"),
  legalSeat: z.string().nullable().describe("CH: the political commune of the registered seat"),
  dissolved: IsoDate.nullable().describe("CH: date of deletion from the commercial register"),
};

export const ChExtrasShape = {
  ...ChItemExtrasShape,
  aliases: z.array(z.string()).describe("CH: the name in the other national languages, as registered"),
  formerNames: z
    .array(z.string())
    .describe("CH: earlier names, latest first (Zefix gives their order, not their dates)"),
  activeNote: z.string().nullable().describe("CH: what the register's status means"),
  purpose: z.string().nullable().describe("CH: the registered purpose"),
  zefixUri: z.url().nullable().describe("CH: the company's page in Zefix"),
  canton: z.string().nullable(),
  legalFormCode: z.string().nullable().describe("CH: legal form code (eCH-0097)"),
  shareCapital: z
    .object({ value: z.number(), currency: z.string() })
    .nullable()
    .describe("CH: nominal capital (corporations only)"),
  lastPublished: IsoDate.nullable().describe("CH: date of the last publication in the SOGC"),
  publications: z
    .array(
      z.object({
        date: IsoDate.nullable(),
        sogcId: z.number().int().nullable(),
        mutations: z.array(z.string()),
      }),
    )
    .describe("CH: the latest SOGC publications about the company (at most 10): dates and kinds of change"),
};

export type ChItem = CompanyCommonBody & z.infer<z.ZodObject<typeof ChItemExtrasShape>>;
export type ChCompany = CompanyCommonBody & z.infer<z.ZodObject<typeof ChExtrasShape>>;

const MAX_PUBLICATIONS = 10;

function activeNote(status: string | null, dissolved: string | null): string | null {
  if (status === "CANCELLED" && dissolved) return `Deleted from the commercial register on ${dissolved}.`;
  return status ? (STATUS_NOTES[status] ?? `Zefix status ${status}.`) : null;
}

const translated = (value: Translated | null | undefined) =>
  text(value?.en) ?? text(value?.de) ?? text(value?.fr) ?? text(value?.it);

function zefixPage(company: ZefixShort & { zefixDetailWeb?: Translated | null }): string | null {
  const page = translated(company.zefixDetailWeb);
  if (page && /^https?:\/\//.test(page)) return page;
  return typeof company.ehraid === "number"
    ? `https://www.zefix.ch/en/search/entity/list/firm/${company.ehraid}`
    : null;
}

function addressLine(address: ZefixFull["address"]): string | null {
  if (!address) return null;
  const street = [text(address.street), text(address.houseNumber)].filter(Boolean).join(" ");
  const town = [text(address.swissZipCode), text(address.city)].filter(Boolean).join(" ");
  const careOf = text(address.careOf);
  return (
    [careOf ? `c/o ${careOf}` : null, street || null, text(address.addon), text(address.poBox), town || null]
      .filter(Boolean)
      .join(", ") || null
  );
}

/** "100000.00", "100'000", "100000,50" → a number; null otherwise. */
export function capital(value: unknown): number | null {
  const raw = text(value)?.replace(/['’\s]/g, "");
  if (!raw) return null;
  const cleaned = raw.includes(",") && !raw.includes(".") ? raw.replace(",", ".") : raw.replace(/,/g, "");
  return /^\d+(\.\d+)?$/.test(cleaned) ? Number(cleaned) : null;
}

export function normaliseZefixItem(company: ZefixShort): ChItem {
  const uid = text(company.uid);
  const status = text(company.status);
  return {
    id: uid ? formatUid(uid) : String(company.ehraid),
    name: text(company.name) ?? (uid ? formatUid(uid) : String(company.ehraid)),
    legalForm: translated(company.legalForm?.name),
    status,
    active: status === null ? null : status === "ACTIVE",
    address: text(company.legalSeat),
    created: null,
    sourceUrl: zefixPage(company) ?? "https://www.zefix.ch/",
    uid: uid ? formatUid(uid) : null,
    ehraid: typeof company.ehraid === "number" ? company.ehraid : null,
    legalSeat: text(company.legalSeat),
    dissolved: isoDate(company.deletionDate),
  };
}

export function normaliseZefixCompany(company: ZefixFull): ChCompany {
  const item = normaliseZefixItem(company);
  const nominal = capital(company.capitalNominal);
  const name = item.name;
  return {
    ...item,
    address: addressLine(company.address) ?? item.address,
    sourceUrl: text(company.cantonalExcerptWeb) ?? item.sourceUrl,
    aliases: (company.translation ?? [])
      .map((t) => text(t))
      .filter((t): t is string => t !== null && t !== name),
    formerNames: [...(company.oldNames ?? [])]
      .sort((a, b) => (a.sequenceNr ?? 0) - (b.sequenceNr ?? 0))
      .map((n) => text(n.name))
      .filter((n): n is string => n !== null),
    activeNote: activeNote(item.status, item.dissolved),
    purpose: text(company.purpose),
    zefixUri: zefixPage(company),
    canton: text(company.canton),
    legalFormCode: text(company.legalForm?.uid),
    shareCapital:
      nominal === null ? null : { value: nominal, currency: text(company.capitalCurrency) ?? "CHF" },
    lastPublished: isoDate(company.sogcDate),
    publications: [...(company.sogcPub ?? [])]
      .sort((a, b) => (b.sogcDate ?? "").localeCompare(a.sogcDate ?? ""))
      .slice(0, MAX_PUBLICATIONS)
      .map((p) => ({
        date: isoDate(p.sogcDate),
        sogcId: typeof p.sogcId === "number" ? p.sogcId : null,
        mutations: (p.mutationTypes ?? []).map((m) => text(m.key)).filter((k): k is string => k !== null),
      })),
  };
}
