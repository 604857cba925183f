// RPO entities as served (v1 `search` rows and `entity/{id}?showHistoricalData=true`): every attribute is a
// history array whose current entry has no `validTo`; dates are YYYY-MM-DD strings; what has no value is left
// out (no `termination`, no `validTo`, no `buildingNumber`), never null. A search row carries only id,
// dbModificationDate, identifiers, fullNames, addresses, establishment (and termination) and sourceRegister: no
// legal form, activities or capital. There is no status flag (termination, legal statuses and the other legal
// facts say it). An address's `regNumber` (súpisné číslo) is a number, 0 when there is none, and
// `buildingNumber` (orientačné číslo) a string: "7608/12" is regNumber 7608 and buildingNumber "12". Some
// strings come back double-encoded (UTF-8 read as Latin-1) and are repaired. Statutory bodies, stakeholders
// and deposits (persons) are never read.
import { z } from "zod";
import { type CompanyCommonBody, IsoDate, isoDate, text } from "../answers.ts";

interface Window {
  validFrom?: string | null;
  validTo?: string | null;
}

interface Coded {
  code?: string | null;
  value?: string | null;
  codelistCode?: string | null;
}

interface RpoAddress extends Window {
  street?: string | null;
  regNumber?: number | string | null;
  buildingNumber?: string | null;
  postalCodes?: string[];
  municipality?: Coded | null;
  country?: Coded | null;
}

export interface RpoEntity {
  id?: number;
  identifiers?: Array<Window & { value?: string }>;
  fullNames?: Array<Window & { value?: string }>;
  addresses?: RpoAddress[];
  establishment?: string | null;
  termination?: string | null;
  legalForms?: Array<Window & { value?: Coded | null }>;
  legalStatuses?: Array<Window & { value?: Coded | null }>;
  activities?: Array<Window & { economicActivityDescription?: string | null }>;
  equities?: Array<
    Window & { value?: number | string | null; valuePaid?: number | null; currency?: Coded | string | null }
  >;
  otherLegalFacts?: Array<Window & { value?: string | null }>;
  sourceRegister?: {
    value?: Coded | null;
    registrationOffices?: Array<Window & { value?: string | null }>;
    registrationNumbers?: Array<Window & { value?: string | null }>;
  } | null;
  statisticalCodes?: {
    statCodesActualization?: string | null;
    mainActivity?: Coded | null;
    esa2010?: Coded | null;
  } | null;
  dbModificationDate?: string | null;
}

/** "Karad\u00c5\u00beičova" → "Karadžičova": UTF-8 bytes that were read as Latin-1, decoded again. */
export function repairDoubleEncoding(value: string): string {
  if (!/[\u00c2-\u00c5][\u0080-\u00bf]/.test(value)) return value;
  if ([...value].some((c) => c.charCodeAt(0) > 0xff)) return value;
  const decoded = Buffer.from(value, "latin1").toString("utf8");
  return decoded.includes("\ufffd") ? value : decoded;
}

const clean = (value: unknown): string | null => {
  const t = text(value);
  return t === null ? null : repairDoubleEncoding(t);
};

/** The entries in force: no end date. */
function inForce<T extends Window>(entries: T[] | undefined): T[] {
  return (entries ?? []).filter((e) => !e.validTo);
}

function latest<T extends Window>(entries: T[] | undefined): T | undefined {
  const open = inForce(entries);
  const pool = open.length > 0 ? open : (entries ?? []);
  return [...pool].sort((a, b) => (b.validFrom ?? "").localeCompare(a.validFrom ?? ""))[0];
}

export const SkItemExtrasShape = {
  legalFormCode: z.string().nullable().describe("SK: legal form code (112 = s.r.o.)"),
  dissolved: IsoDate.nullable().describe("SK: date the entity ceased (termination)"),
};

const Named = z.object({ code: z.string().nullable(), name: z.string().nullable() });

export const SkExtrasShape = {
  ...SkItemExtrasShape,
  formerNames: z
    .array(z.object({ name: z.string(), from: IsoDate.nullable(), to: IsoDate.nullable() }))
    .describe("SK: earlier names with their validity windows, latest first"),
  activity: Named.nullable().describe("SK: main activity, SK NACE"),
  sector: z.string().nullable().describe("SK: institutional sector (ESA 2010)"),
  register: z
    .object({ name: z.string().nullable(), office: z.string().nullable(), number: z.string().nullable() })
    .nullable()
    .describe("SK: source register, its registering office and the entry number"),
  shareCapital: z
    .object({ value: z.number(), currency: z.string(), since: IsoDate.nullable() })
    .nullable()
    .describe("SK: current registered capital"),
  businessScope: z.array(z.string()).describe("SK: current objects of business"),
  updated: IsoDate.nullable().describe("SK: when RPO last changed the entity"),
};

export type SkItem = CompanyCommonBody & z.infer<z.ZodObject<typeof SkItemExtrasShape>>;
export type SkCompany = CompanyCommonBody & z.infer<z.ZodObject<typeof SkExtrasShape>>;

/** "Karadžičova 7608/12, 82108 Bratislava, …"; a place without streets is written "Lokca 215, 02951 Lokca". */
function addressLine(address: RpoAddress | undefined): string | null {
  if (!address) return null;
  const reg = clean(address.regNumber);
  const number = [reg === "0" ? null : reg, clean(address.buildingNumber)].filter(Boolean).join("/");
  const municipality = clean(address.municipality?.value);
  const street = clean(address.street) ?? (number ? municipality : null);
  const town = [clean(address.postalCodes?.[0]), municipality].filter(Boolean).join(" ");
  return (
    [[street, number].filter(Boolean).join(" "), town, clean(address.country?.value)]
      .filter(Boolean)
      .join(", ") || null
  );
}

export function rpoIco(entity: RpoEntity): string | null {
  return clean(latest(entity.identifiers)?.value);
}

function statusOf(entity: RpoEntity): { status: string; active: boolean } {
  if (isoDate(entity.termination)) return { status: "terminated", active: false };
  const facts = [
    ...inForce(entity.otherLegalFacts).map((f) => clean(f.value)),
    ...inForce(entity.legalStatuses).map((s) => clean(s.value?.value)),
  ];
  if (facts.some((f) => f !== null && /likvid/i.test(f))) return { status: "in liquidation", active: false };
  return { status: "active", active: true };
}

export function normaliseRpoItem(entity: RpoEntity, ico: string): SkItem {
  const form = latest(entity.legalForms)?.value;
  return {
    id: ico,
    name: clean(latest(entity.fullNames)?.value) ?? ico,
    legalForm: clean(form?.value),
    ...statusOf(entity),
    address: addressLine(latest(entity.addresses)),
    created: isoDate(entity.establishment),
    sourceUrl: `https://api.statistics.sk/rpo/v1/entity/${entity.id}`,
    legalFormCode: clean(form?.code),
    dissolved: isoDate(entity.termination),
  };
}

function money(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return null;
  const n = Number(value.replace(/[\s\u00a0]/g, "").replace(",", "."));
  return Number.isFinite(n) ? n : null;
}

export function normaliseRpoEntity(entity: RpoEntity, ico: string): SkCompany {
  const equity = latest(entity.equities);
  const equityValue = money(equity?.value);
  const currency = typeof equity?.currency === "string" ? equity.currency : equity?.currency?.code;
  const main = entity.statisticalCodes?.mainActivity;
  const esa = entity.statisticalCodes?.esa2010;
  const source = entity.sourceRegister;
  return {
    ...normaliseRpoItem(entity, ico),
    formerNames: (entity.fullNames ?? [])
      .filter((n) => n.validTo && clean(n.value))
      .sort((a, b) => (b.validFrom ?? "").localeCompare(a.validFrom ?? ""))
      .map((n) => ({ name: clean(n.value) as string, from: isoDate(n.validFrom), to: isoDate(n.validTo) })),
    activity: main ? { code: clean(main.code), name: clean(main.value) } : null,
    sector: clean(esa?.value) ?? clean(esa?.code),
    register: source
      ? {
          name: clean(source.value?.value),
          office: clean(latest(source.registrationOffices)?.value),
          number: clean(latest(source.registrationNumbers)?.value),
        }
      : null,
    shareCapital:
      equity && equityValue !== null
        ? { value: equityValue, currency: clean(currency) ?? "EUR", since: isoDate(equity.validFrom) }
        : null,
    businessScope: inForce(entity.activities)
      .map((a) => clean(a.economicActivityDescription))
      .filter((a): a is string => a !== null),
    updated: isoDate(entity.dbModificationDate),
  };
}
