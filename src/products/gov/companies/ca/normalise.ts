// One <corporation> record of Corporations Canada's open data → the company as we serve it, its coded values
// resolved through codes.xml. Company-level facts only: the file has no directors (directorLimits, the minimum
// and maximum number of directors, is left out).
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { z } from "zod";
import { type CompanyCommonBody, IsoDate, isoDate, text } from "../answers.ts";
import type { CaCodes } from "./codes.ts";

const CA_SCOPE = "federal";

const Name = z.object({
  name: z.string(),
  nameType: z.string().describe("CA: the name's type from codes.xml, or its code where the list has none"),
  current: z.boolean(),
  effectiveDate: IsoDate.nullable(),
  expiryDate: IsoDate.nullable().describe("CA: when the name stopped being used; null while it is current"),
});

export const CaExtrasShape = {
  corporationId: z.string().describe("CA: the federal corporation number, without leading zeros"),
  bn9: z
    .string()
    .nullable()
    .describe("CA: the 9-digit business number root (CRA), when the corporation has one"),
  statusCode: z.string().nullable().describe("CA: the status code of codes.xml"),
  statusDetail: z
    .string()
    .nullable()
    .describe("CA: the full status label (Active - Dissolution Pending (Non-compliance), …)"),
  statusDate: IsoDate.nullable().describe("CA: since when the current status holds"),
  act: z.string().nullable().describe("CA: the governing act (Canada Business Corporations Act, …)"),
  names: z.array(Name).describe("CA: every name, current and former, with its validity window"),
  registeredOffice: z
    .object({
      street: z.string().nullable(),
      city: z.string().nullable(),
      province: z.string().nullable().describe("Two-letter province or state code"),
      country: z.string().nullable().describe("Two-letter country code"),
      postalCode: z.string().nullable(),
    })
    .nullable(),
  anniversaryDate: IsoDate.nullable().describe(
    "CA: the date the corporation was created under its act (incorporation or amalgamation)",
  ),
  yearLastAnnualFiling: z
    .number()
    .int()
    .nullable()
    .describe("CA: the latest year an annual return was filed"),
  annualFilings: z
    .array(z.object({ year: z.number().int(), annualMeetingDate: IsoDate.nullable() }))
    .describe("CA: annual returns filed, latest first"),
  activities: z
    .array(z.object({ code: z.string(), activity: z.string().nullable(), date: IsoDate.nullable() }))
    .describe("CA: dated events (incorporation, amalgamation, dissolution, revival, …), oldest first"),
  scope: z
    .literal(CA_SCOPE)
    .describe("CA: federal corporations only; provincial ones are in provincial registers"),
  sourceFile: z.string().describe("CA: the file of the open data the record was read from"),
  scrapedAt: z.iso.datetime().describe("CA: when the open data file was downloaded"),
};

export type CaCompany = CompanyCommonBody & z.infer<z.ZodObject<typeof CaExtrasShape>>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) =>
    [
      "name",
      "status",
      "act",
      "activity",
      "address",
      "addressLine",
      "annualReturn",
      "businessNumber",
    ].includes(name),
});

type Node = Record<string, unknown>;
const nodes = (parent: unknown, container: string, item: string): Node[] =>
  (((parent as Node | undefined)?.[container] as Node | undefined)?.[item] as Node[] | undefined) ?? [];
const attr = (node: Node | undefined, name: string): string | null => text(node?.[`@_${name}`]);
const body = (value: unknown): string | null =>
  typeof value === "object" && value !== null ? text((value as Node)["#text"]) : text(value);

/**
 * Name codes our sources explain when codes.xml has no label for them: code 1 is the name type the JSON API
 * calls "Primary", for the current and the former names alike (current and former are told by `current` and
 * `expiryDate`, not by the code).
 */
const NAME_TYPES: Record<string, string> = { "1": "Primary" };

/** The current entry (current="true"), else the one begun last. */
function current(entries: Node[], dateAttribute = "effectiveDate"): Node | undefined {
  return (
    entries.find((e) => attr(e, "current") === "true") ??
    [...entries].sort((a, b) => (attr(b, dateAttribute) ?? "").localeCompare(attr(a, dateAttribute) ?? ""))[0]
  );
}

/** Active unless the label (or, without one, the documented code) says inactive or dissolved. */
function activeOf(code: string | null, label: string | null): boolean | null {
  if (label) {
    if (/^active\b/i.test(label)) return true;
    if (/^(inactive|dissolved)\b/i.test(label)) return false;
  }
  if (code && ["1", "2", "3", "4"].includes(code)) return true;
  if (code && ["9", "10", "11", "19"].includes(code)) return false;
  return null;
}

function nameType(codes: CaCodes, code: string | null): string {
  if (!code) return "unknown";
  return codes.label("name", code) ?? NAME_TYPES[code] ?? code;
}

export interface RecordContext {
  codes: CaCodes;
  sourceFile: string;
  sourceUrl: string;
  scrapedAt: string;
}

/** As stored in the index: the company and the archive it was read from (the answer's `source`). */
export type StoredCaCompany = CaCompany & { apiUrl: string };

/** A malformed record: why, and (for broken XML) the line within the record where the parser stopped. */
type ParsedCorporation = { company: StoredCaCompany } | { error: string; recordLine?: number };

const companyPage = (id: string) => `https://ised-isde.canada.ca/cc/lgcy/fdrlCrpDtls.html?corpId=${id}`;

/** One <corporation>…</corporation> text → the company, or why the record is malformed. */
export function parseCorporation(xml: string, context: RecordContext): ParsedCorporation {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    return { error: `malformed XML: ${valid.err.msg}`, recordLine: valid.err.line };
  }
  const corporation = parser.parse(xml).corporation as Node | undefined;
  const rawId = attr(corporation, "corporationId");
  if (!corporation || !rawId || !/^\d{1,9}$/.test(rawId)) {
    return { error: `a corporation without a numeric corporationId (${JSON.stringify(rawId)})` };
  }
  const id = rawId.replace(/^0+(?=\d)/, "");
  const { codes } = context;
  const names = nodes(corporation, "names", "name")
    .map((n) => ({
      name: body(n) ?? "",
      nameType: nameType(codes, attr(n, "code")),
      current: attr(n, "current") === "true",
      effectiveDate: isoDate(attr(n, "effectiveDate")),
      expiryDate: isoDate(attr(n, "expiryDate")),
    }))
    .filter((n) => n.name !== "");
  if (names.length === 0) return { error: `corporation ${id} has no name` };
  names.sort(
    (a, b) =>
      Number(b.current) - Number(a.current) || (b.effectiveDate ?? "").localeCompare(a.effectiveDate ?? ""),
  );
  const status = current(nodes(corporation, "statuses", "status"));
  const statusCode = attr(status, "code");
  const statusLabel = codes.label("status", statusCode);
  const act = codes.label("act", attr(current(nodes(corporation, "acts", "act")), "code"));
  const activities = nodes(corporation, "activities", "activity")
    .map((a) => ({
      code: attr(a, "code") ?? "",
      activity: codes.label("activity", attr(a, "code")),
      date: isoDate(attr(a, "date")),
    }))
    .filter((a) => a.code !== "")
    .sort((a, b) => (a.date ?? "").localeCompare(b.date ?? ""));
  // Created under its act: incorporation (1) or amalgamation (4), the codes C8 documents.
  const anniversaryDate = activities.find((a) => a.code === "1" || a.code === "4")?.date ?? null;
  const annualFilings = nodes(corporation, "annualReturns", "annualReturn")
    .map((r) => ({
      year: Number(attr(r, "yearOfFiling") ?? body(r.yearOfFiling)),
      annualMeetingDate: isoDate(attr(r, "annualMeetingDate") ?? body(r.annualMeetingDate)),
    }))
    .filter((r) => Number.isInteger(r.year) && r.year > 1800)
    .sort((a, b) => b.year - a.year);
  const address = current(nodes(corporation, "addresses", "address"));
  const registeredOffice = address
    ? {
        street:
          ((address.addressLine as unknown[] | undefined) ?? []).map(body).filter(Boolean).join(", ") || null,
        city: body(address.city),
        province: attr(address.province as Node | undefined, "code") ?? body(address.province),
        country: attr(address.country as Node | undefined, "code") ?? body(address.country),
        postalCode: body(address.postalCode),
      }
    : null;
  const bn = nodes(corporation, "businessNumbers", "businessNumber").map(body).find(Boolean) ?? null;
  const bn9 = bn && /^\d{9}/.test(bn) ? bn.slice(0, 9) : null;
  const currentName = names[0] as (typeof names)[number];
  const statusParts = statusLabel?.split(" - ") ?? [];
  return {
    company: {
      id,
      name: currentName.name,
      legalForm: act,
      status: statusParts[0] ?? statusCode,
      active: activeOf(statusCode, statusLabel),
      address: registeredOffice ? oneLine(registeredOffice) : null,
      created: anniversaryDate,
      sourceUrl: companyPage(id),
      corporationId: id,
      bn9,
      statusCode,
      statusDetail: statusParts.length > 1 ? (statusLabel as string) : null,
      statusDate: isoDate(attr(status, "effectiveDate")),
      act,
      names,
      registeredOffice,
      anniversaryDate,
      yearLastAnnualFiling: annualFilings[0]?.year ?? null,
      annualFilings,
      activities,
      scope: CA_SCOPE,
      sourceFile: context.sourceFile,
      scrapedAt: context.scrapedAt,
      apiUrl: context.sourceUrl,
    },
  };
}

function oneLine(office: NonNullable<CaCompany["registeredOffice"]>): string | null {
  const region = [office.province, office.postalCode].filter(Boolean).join(" ");
  return [office.street, office.city, region, office.country].filter(Boolean).join(", ") || null;
}
