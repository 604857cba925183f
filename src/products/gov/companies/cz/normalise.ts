// ARES records as served: the core record (`ekonomicke-subjekty/{ico}`, also each search hit) and the public
// register extract (`ekonomicke-subjekty-vr/{ico}`), whose attributes are history arrays (the current entry
// has no `datumVymazu`) and whose money is a string with `;` (or `,`) as the decimal separator. Statutory
// bodies, partners and shareholders (persons) are never read.
import { z } from "zod";
import { type CompanyCommonBody, IsoDate, isoDate, text } from "../answers.ts";

interface AresAddress {
  textovaAdresa?: string;
  nazevUlice?: string;
  cisloDomovni?: number;
  cisloOrientacni?: number;
  cisloOrientacniPismeno?: string;
  nazevCastiObce?: string;
  nazevObce?: string;
  psc?: number | string;
  nazevStatu?: string;
}

export interface AresSubject {
  ico?: string;
  icoId?: string;
  obchodniJmeno?: string;
  pravniForma?: string;
  datumVzniku?: string;
  datumZaniku?: string;
  datumAktualizace?: string;
  dic?: string | null;
  /** The VAT group's number (CZ699…) for a member of a VAT group, which then has no `dic` of its own. */
  dicSkDph?: string | null;
  czNace?: string[];
  sidlo?: AresAddress;
  primarniZdroj?: string;
  seznamRegistraci?: Record<string, string>;
}

interface Dated {
  datumZapisu?: string;
  datumVymazu?: string;
}

interface VrRecord {
  primarniZaznam?: boolean;
  rejstrik?: string;
  stavSubjektu?: string;
  datumZapisu?: string;
  datumAktualizace?: string;
  obchodniJmeno?: Array<Dated & { hodnota?: string }>;
  spisovaZnacka?: Array<Dated & { soud?: string; oddil?: string; vlozka?: number | string }>;
  zakladniKapital?: Array<
    Dated & {
      vklad?: { typObnos?: string; hodnota?: string };
      splaceni?: { typObnos?: string; hodnota?: string };
    }
  >;
  cinnosti?: { predmetPodnikani?: Array<Dated & { hodnota?: string }> };
  predmetPodnikani?: Array<Dated & { hodnota?: string }>;
  odstepneZavody?: Array<Dated>;
}

export interface VrExtract {
  icoId?: string;
  zaznamy?: VrRecord[];
}

/** The register courts' codes as ARES gives them in `spisovaZnacka.soud`. */
const COURTS: Record<string, string> = {
  MSPH: "Městský soud v Praze",
  KSPH: "Krajský soud v Praze",
  KSCB: "Krajský soud v Českých Budějovicích",
  KSPL: "Krajský soud v Plzni",
  KSUL: "Krajský soud v Ústí nad Labem",
  KSHK: "Krajský soud v Hradci Králové",
  KSBR: "Krajský soud v Brně",
  KSOS: "Krajský soud v Ostravě",
};

const Money = z.object({
  value: z.number().describe("Amount (ARES gives it as text with a decimal comma or semicolon)"),
  currency: z.string().describe("ISO 4217 code (KORUNY → CZK, EURA → EUR)"),
  since: IsoDate.nullable().describe("When this amount was entered in the register"),
});

const CzRegister = z
  .object({
    register: z.string().nullable().describe("Register code: OR (commercial), SR (associations), NR, RU, …"),
    court: z.string().nullable().describe("Registering court"),
    fileNumber: z.string().nullable().describe("File number (spisová značka), e.g. B 8573"),
    registeredOn: IsoDate.nullable(),
    state: z.string().nullable().describe("The register's state: AKTIVNI, ZANIKLY, …"),
    names: z
      .array(z.object({ name: z.string(), from: IsoDate.nullable(), to: IsoDate.nullable() }))
      .describe("Every registered name with its validity window, current (to: null) first"),
    shareCapital: Money.nullable().describe("Current registered capital"),
    businessScope: z.array(z.string()).describe("Current objects of business (předmět podnikání)"),
    branchCount: z
      .number()
      .int()
      .nullable()
      .describe("Current branches (odštěpné závody); null when not given"),
    updated: IsoDate.nullable(),
    sourceUrl: z.url().describe("The company in the public register (justice.cz)"),
  })
  .describe("CZ: the public register (veřejný rejstřík) extract; null when the company is not in it");

type CzRegisterBody = z.infer<typeof CzRegister>;

export const CzItemExtrasShape = {
  dissolved: IsoDate.nullable().describe("CZ: date the subject ceased (datum zániku)"),
  vatId: z
    .string()
    .nullable()
    .describe("CZ: VAT number (DIČ); for a member of a VAT group, the group's number (dicSkDph)"),
};

export const CzExtrasShape = {
  ...CzItemExtrasShape,
  legalFormNote: z.string().nullable().describe("CZ: the legal form's name (ARES code list PravniForma)"),
  activity: z.array(z.string()).describe("CZ: CZ-NACE activity codes"),
  updated: IsoDate.nullable().describe("CZ: when ARES last updated the record"),
  register: CzRegister.nullable(),
};

export type CzItem = CompanyCommonBody & z.infer<z.ZodObject<typeof CzItemExtrasShape>>;
export type CzCompany = CompanyCommonBody & z.infer<z.ZodObject<typeof CzExtrasShape>>;

function addressLine(sidlo: AresAddress | undefined): string | null {
  if (!sidlo) return null;
  const given = text(sidlo.textovaAdresa);
  if (given) return given;
  const number = [sidlo.cisloDomovni, sidlo.cisloOrientacni].filter((n) => n !== undefined).join("/");
  const street = [text(sidlo.nazevUlice) ?? text(sidlo.nazevCastiObce), number].filter(Boolean).join(" ");
  const town = [text(sidlo.psc), text(sidlo.nazevObce)].filter(Boolean).join(" ");
  return [street, town].filter(Boolean).join(", ") || null;
}

/** The state of the subject in its primary source register (stavZdrojeVr, stavZdrojeRes, …). */
function primaryState(subject: AresSubject): string | null {
  const sources = subject.seznamRegistraci ?? {};
  const primary = subject.primarniZdroj
    ? `stavZdroje${subject.primarniZdroj.charAt(0).toUpperCase()}${subject.primarniZdroj.slice(1)}`
    : undefined;
  return (
    text(primary ? sources[primary] : undefined) ?? text(sources.stavZdrojeVr) ?? text(sources.stavZdrojeRes)
  );
}

/** States a subject has in a source register it was never entered in ("NEEXISTUJICI"), or none at all. */
const NOT_IN_SOURCE = new Set(["NEEXISTUJICI"]);

/**
 * Whether the subject is (or was) in the public register: ARES lists every source register in
 * `seznamRegistraci`, with NEEXISTUJICI for those the subject was never entered in.
 */
export function isInPublicRegister(subject: AresSubject): boolean {
  const state = text(subject.seznamRegistraci?.stavZdrojeVr);
  return state !== null && !NOT_IN_SOURCE.has(state);
}

/** The subject's own DIČ, else (a VAT group member) the group's DIČ; "N/A" is no number. */
function vatIdOf(subject: AresSubject): string | null {
  for (const value of [subject.dic, subject.dicSkDph]) {
    const id = text(value);
    if (id && id !== "N/A") return id;
  }
  return null;
}

export function normaliseAresItem(subject: AresSubject): CzItem {
  const ico = subject.ico as string;
  const status = primaryState(subject);
  const dissolved = isoDate(subject.datumZaniku);
  return {
    id: ico,
    name: text(subject.obchodniJmeno) ?? ico,
    legalForm: text(subject.pravniForma),
    status,
    active: dissolved ? false : status === "AKTIVNI" ? true : status ? false : null,
    address: addressLine(subject.sidlo),
    created: isoDate(subject.datumVzniku),
    sourceUrl: `https://ares.gov.cz/ekonomicke-subjekty?ico=${ico}`,
    dissolved,
    vatId: vatIdOf(subject),
  };
}

export function normaliseAresCompany(
  subject: AresSubject,
  register: CzRegisterBody | null,
  legalFormNames: Record<string, string>,
): CzCompany {
  const item = normaliseAresItem(subject);
  return {
    ...item,
    legalFormNote: item.legalForm ? (legalFormNames[item.legalForm] ?? null) : null,
    activity: subject.czNace ?? [],
    updated: isoDate(subject.datumAktualizace),
    register,
  };
}

/** "2000000;00", "2 000 000,50" → 2000000, 2000000.5; anything else → null. */
export function decimalCommaAmount(raw: unknown): number | null {
  if (typeof raw === "number") return raw;
  if (typeof raw !== "string") return null;
  const cleaned = raw.replace(/[\s\u00a0]/g, "").replace(/[;,]/, ".");
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return null;
  return Number(cleaned);
}

const CURRENCIES: Record<string, string> = { KORUNY: "CZK", EURA: "EUR" };

const current = <T extends Dated>(entries: T[] | undefined): T[] =>
  (entries ?? []).filter((e) => !e.datumVymazu);
const byStartDesc = (a: Dated, b: Dated) => (b.datumZapisu ?? "").localeCompare(a.datumZapisu ?? "");

export function normaliseVr(extract: VrExtract, ico: string): CzRegisterBody | null {
  const records = extract.zaznamy ?? [];
  const record = records.find((r) => r.primarniZaznam) ?? records[0];
  if (!record) return null;
  const file = current(record.spisovaZnacka).sort(byStartDesc)[0];
  const capital = current(record.zakladniKapital).sort(byStartDesc)[0];
  const capitalValue = decimalCommaAmount(capital?.vklad?.hodnota);
  const scope = record.cinnosti?.predmetPodnikani ?? record.predmetPodnikani;
  const starts = [record.datumZapisu, ...(record.spisovaZnacka ?? []).map((s) => s.datumZapisu)]
    .map(isoDate)
    .filter((d): d is string => d !== null)
    .sort();
  return {
    register: text(record.rejstrik),
    court: file?.soud ? (COURTS[file.soud] ?? file.soud) : null,
    fileNumber: file ? [text(file.oddil), text(file.vlozka)].filter(Boolean).join(" ") || null : null,
    registeredOn: starts[0] ?? null,
    state: text(record.stavSubjektu),
    names: [...(record.obchodniJmeno ?? [])]
      .filter((n) => text(n.hodnota))
      .sort((a, b) => Number(Boolean(a.datumVymazu)) - Number(Boolean(b.datumVymazu)) || byStartDesc(a, b))
      .map((n) => ({
        name: text(n.hodnota) as string,
        from: isoDate(n.datumZapisu),
        to: isoDate(n.datumVymazu),
      })),
    shareCapital:
      capital && capitalValue !== null
        ? {
            value: capitalValue,
            currency: CURRENCIES[capital.vklad?.typObnos ?? ""] ?? capital.vklad?.typObnos ?? "CZK",
            since: isoDate(capital.datumZapisu),
          }
        : null,
    businessScope: current(scope)
      .map((s) => text(s.hodnota))
      .filter((s): s is string => s !== null),
    branchCount: Array.isArray(record.odstepneZavody) ? current(record.odstepneZavody).length : null,
    updated: isoDate(record.datumAktualizace),
    sourceUrl: `https://or.justice.cz/ias/ui/rejstrik-$firma?ico=${ico}`,
  };
}
