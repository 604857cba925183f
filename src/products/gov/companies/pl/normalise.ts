// KRS extracts as served. The full extract (OdpisPelny) keeps every field as a history array of entries
// [{<value>, nrWpisuWprow, nrWpisuWykr?}] whose numbers point at the header's dated entry list (naglowekP.wpis);
// the current extract (OdpisAktualny) has the same keys with the bare current value. `current` reads both, so
// one normaliser serves either. Dates are DD.MM.YYYY, money has a decimal comma. Persons (dzial2 boards,
// shareholders, their masked names and PESELs) are never read.
import { z } from "zod";
import { isObject, type JsonObject } from "../../../../json.ts";
import { type CompanyCommonBody, IsoDate, text } from "../answers.ts";

interface Entry {
  numerWpisu?: number | string;
  dataWpisu?: string;
  opis?: string;
}

export interface KrsOdpis {
  odpis?: {
    rodzaj?: string;
    naglowekA?: JsonObject & { numerKRS?: string; rejestr?: string; dataRejestracjiWKRS?: string };
    naglowekP?: JsonObject & {
      numerKRS?: string;
      rejestr?: string;
      dataRejestracjiWKRS?: string;
      wpis?: Entry[];
    };
    dane?: {
      dzial1?: JsonObject;
      dzial3?: JsonObject;
      dzial6?: JsonObject;
    };
  };
}

const entryNumber = (value: unknown): number | null => {
  const n = typeof value === "number" ? value : Number(text(value));
  return Number.isInteger(n) && n > 0 ? n : null;
};

const withdrawn = (entry: JsonObject) => entryNumber(entry.nrWpisuWykr) !== null;

/** DD.MM.YYYY (or an ISO date) → YYYY-MM-DD; anything else → null. */
export function krsDate(value: unknown): string | null {
  const raw = text(value);
  if (!raw) return null;
  const pl = /^(\d{2})\.(\d{2})\.(\d{4})/.exec(raw);
  if (pl) return `${pl[3]}-${pl[2]}-${pl[1]}`;
  const iso = /^(\d{4}-\d{2}-\d{2})/.exec(raw);
  return iso ? (iso[1] as string) : null;
}

/** "5000,00", "1 234 567,89" → a number; null when it is not one. */
export function krsMoney(value: unknown): number | null {
  if (typeof value === "number") return value;
  const raw = text(value);
  if (!raw) return null;
  let cleaned = raw.replace(/[\s\u00a0]/g, "");
  if (cleaned.includes(",")) cleaned = cleaned.replace(/\./g, "").replace(",", ".");
  return /^-?\d+(\.\d+)?$/.test(cleaned) ? Number(cleaned) : null;
}

/**
 * The entry in force of a history array (no nrWpisuWykr; the latest introduced), else the latest one; from a
 * bare value (current extract), the value itself. With `key`, that key of the entry when it wraps its value.
 */
function current(node: unknown, key?: string): unknown {
  if (!Array.isArray(node)) return node;
  const entries = node.filter(isObject);
  const open = entries.filter((e) => !withdrawn(e));
  const pool = open.length > 0 ? open : entries;
  const latest = [...pool].sort(
    (a, b) => (entryNumber(b.nrWpisuWprow) ?? 0) - (entryNumber(a.nrWpisuWprow) ?? 0),
  )[0];
  if (!latest) return undefined;
  return key !== undefined && key in latest ? latest[key] : latest;
}

/** Items of a list whose items may be wrapped in `pozycja` history arrays, the ones in force only. */
function listInForce(node: unknown): JsonObject[] {
  if (!Array.isArray(node)) return [];
  const items: JsonObject[] = [];
  for (const item of node) {
    if (!isObject(item)) continue;
    if (Array.isArray(item.pozycja))
      items.push(...item.pozycja.filter((p): p is JsonObject => isObject(p) && !withdrawn(p)));
    else if (!withdrawn(item)) items.push(item);
  }
  return items;
}

const BOOKKEEPING = new Set(["nrWpisuWprow", "nrWpisuWykr"]);

/** True when the node holds some fact still in force (a non-empty text, a number, a true flag). */
function holdsFactInForce(node: unknown): boolean {
  if (Array.isArray(node))
    return node.some((item) => !(isObject(item) && withdrawn(item)) && holdsFactInForce(item));
  if (isObject(node)) {
    return Object.entries(node).some(([key, value]) => !BOOKKEEPING.has(key) && holdsFactInForce(value));
  }
  return (typeof node === "string" && node.trim() !== "") || typeof node === "number" || node === true;
}

export const PlItemExtrasShape = {
  vatId: z.string().nullable().describe("PL: NIP, the tax identification number"),
  regon: z.string().nullable().describe("PL: REGON, the statistical number (9 or 14 digits)"),
};

const FormerName = z.object({ name: z.string(), from: IsoDate.nullable(), to: IsoDate.nullable() });

export const PlExtrasShape = {
  ...PlItemExtrasShape,
  register: z
    .enum(["P", "S"])
    .describe("PL: the KRS register: P businesses, S associations, foundations and other organisations"),
  dissolved: IsoDate.nullable().describe("PL: date of the entry deleting the entity from the KRS"),
  formerNames: z.array(FormerName).describe("PL: earlier names with the dates of the entries, latest first"),
  seat: z
    .object({
      town: z.string().nullable(),
      municipality: z.string().nullable(),
      county: z.string().nullable(),
      voivodeship: z.string().nullable(),
      country: z.string().nullable(),
    })
    .nullable()
    .describe("PL: the registered seat (siedziba)"),
  shareCapital: z
    .object({ value: z.number(), currency: z.string() })
    .nullable()
    .describe("PL: registered share capital (kapitał zakładowy)"),
  activities: z
    .array(z.object({ code: z.string(), description: z.string().nullable(), main: z.boolean() }))
    .describe("PL: objects of business (PKD codes in force), the main one first"),
  publicBenefit: z.boolean().nullable().describe("PL: holds public-benefit (OPP) status"),
  lastEntry: z
    .object({ number: z.number().int(), date: IsoDate.nullable() })
    .nullable()
    .describe("PL: the latest entry in the register"),
  indexSize: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("PL (searches): KRS entities in our name index"),
};

export type PlItem = CompanyCommonBody & z.infer<z.ZodObject<typeof PlItemExtrasShape>>;
export type PlCompany = CompanyCommonBody & Omit<z.infer<z.ZodObject<typeof PlExtrasShape>>, "indexSize">;

function krsApiUrl(krs: string, register: "P" | "S"): string {
  return `https://api-krs.ms.gov.pl/api/krs/OdpisAktualny/${krs}?rejestr=${register}&format=json`;
}

function addressLine(address: unknown): string | null {
  if (!isObject(address)) return null;
  const house = [text(address.nrDomu), text(address.nrLokalu)].filter(Boolean).join("/");
  const street = [text(address.ulica), house].filter(Boolean).join(" ");
  const town = [text(address.kodPocztowy), text(address.miejscowosc)].filter(Boolean).join(" ");
  const country = text(address.kraj);
  return [street, town, country && country !== "POLSKA" ? country : null].filter(Boolean).join(", ") || null;
}

function entryDates(entries: Entry[] | undefined): Map<number, string | null> {
  const dates = new Map<number, string | null>();
  for (const entry of entries ?? []) {
    const n = entryNumber(entry.numerWpisu);
    if (n !== null) dates.set(n, krsDate(entry.dataWpisu));
  }
  return dates;
}

function statusOf(name: string, dzial6: JsonObject | undefined, dissolved: string | null) {
  if (dissolved) return { status: "deleted", active: false };
  const bankruptcy = dzial6?.postepowanieUpadlosciowe;
  const bankruptcyEnded = Array.isArray(bankruptcy)
    ? bankruptcy.some((p) => isObject(p) && holdsFactInForce(p.opisZakonczeniaProcesuUpadlosci))
    : false;
  const inBankruptcy =
    /W UPADŁOŚCI/i.test(name) ||
    (!bankruptcyEnded &&
      Array.isArray(bankruptcy) &&
      bankruptcy.some(
        (p) =>
          isObject(p) &&
          Object.entries(p).some(([k, v]) => k !== "opisZakonczeniaProcesuUpadlosci" && holdsFactInForce(v)),
      ));
  if (inBankruptcy) return { status: "in bankruptcy", active: false };
  if (/W LIKWIDACJI/i.test(name) || holdsFactInForce(dzial6?.likwidacja)) {
    return { status: "in liquidation", active: false };
  }
  return { status: "active", active: true };
}

/** The KRS number and register the extract is about (its header), or null when it has none. */
export function odpisHeader(doc: KrsOdpis): { krs: string; register: "P" | "S" } | null {
  const header = doc.odpis?.naglowekP ?? doc.odpis?.naglowekA;
  const krs = text(header?.numerKRS);
  if (!krs) return null;
  const register = /S$/i.test(text(header?.rejestr) ?? "") ? "S" : "P";
  return { krs: krs.padStart(10, "0"), register };
}

/** The search item of a company: the common fields and the tax and statistical numbers. */
export function toItem(company: PlCompany): PlItem {
  const { id, name, legalForm, status, active, address, created, sourceUrl, vatId, regon } = company;
  return { id, name, legalForm, status, active, address, created, sourceUrl, vatId, regon };
}

function lastEntryOf(entries: Entry[], header: JsonObject | undefined): PlCompany["lastEntry"] {
  const last = [...entries].sort(
    (a, b) => (entryNumber(b.numerWpisu) ?? 0) - (entryNumber(a.numerWpisu) ?? 0),
  )[0];
  const number = entryNumber(last?.numerWpisu) ?? entryNumber(header?.numerOstatniegoWpisu);
  if (number === null) return null;
  return { number, date: krsDate(last ? last.dataWpisu : header?.dataOstatniegoWpisu) };
}

export function normaliseKrs(doc: KrsOdpis, krs: string, register: "P" | "S"): PlCompany {
  const odpis = doc.odpis ?? {};
  const header = odpis.naglowekP ?? odpis.naglowekA;
  const entries = odpis.naglowekP?.wpis ?? [];
  const dates = entryDates(entries);
  const dzial1 = odpis.dane?.dzial1 ?? {};
  const subject = isObject(dzial1.danePodmiotu) ? dzial1.danePodmiotu : {};
  const seatAndAddress = isObject(dzial1.siedzibaIAdres) ? dzial1.siedzibaIAdres : {};
  const ids = current(subject.identyfikatory, "identyfikatory");
  const name = text(current(subject.nazwa, "nazwa")) ?? krs;
  const seat = current(seatAndAddress.siedziba);
  const capital = isObject(dzial1.kapital) ? current(dzial1.kapital.wysokoscKapitaluZakladowego) : undefined;
  const capitalValue = isObject(capital) ? krsMoney(capital.wartosc) : null;
  const lastEntry = lastEntryOf(entries, header);
  // Deleted: the latest entry is the deletion (a later entry would mean the deletion was reversed).
  const latest = entries.find((e) => entryNumber(e.numerWpisu) === lastEntry?.number);
  const dissolved =
    latest && /WYKREŚLENIE|WYKRESLENIE/i.test(latest.opis ?? "") ? krsDate(latest.dataWpisu) : null;
  const firstEntry = entries.find((e) => entryNumber(e.numerWpisu) === 1);
  const opp = current(subject.czyPosiadaStatusOPP, "czyPosiadaStatusOPP");
  const dzial3 = odpis.dane?.dzial3 ?? {};
  const scope = isObject(dzial3.przedmiotDzialalnosci) ? dzial3.przedmiotDzialalnosci : {};
  const activity = (main: boolean) => (item: JsonObject) => {
    const code = [text(item.kodDzial), text(item.kodKlasa), text(item.kodPodklasa)].filter(Boolean).join(".");
    return code ? [{ code, description: text(item.opis), main }] : [];
  };
  const dzial6 = odpis.dane?.dzial6;
  return {
    id: krs,
    name,
    legalForm: text(current(subject.formaPrawna, "formaPrawna")),
    ...statusOf(name, isObject(dzial6) ? dzial6 : undefined, dissolved),
    address: addressLine(current(seatAndAddress.adres)),
    created: krsDate(header?.dataRejestracjiWKRS) ?? krsDate(firstEntry?.dataWpisu),
    sourceUrl: krsApiUrl(krs, register),
    vatId: isObject(ids) ? text(ids.nip) : null,
    regon: isObject(ids) ? text(ids.regon) : null,
    register,
    dissolved,
    formerNames: (Array.isArray(subject.nazwa) ? subject.nazwa.filter(isObject) : [])
      .filter((n) => withdrawn(n) && text(n.nazwa))
      .sort((a, b) => (entryNumber(b.nrWpisuWprow) ?? 0) - (entryNumber(a.nrWpisuWprow) ?? 0))
      .map((n) => ({
        name: text(n.nazwa) as string,
        from: dates.get(entryNumber(n.nrWpisuWprow) ?? 0) ?? null,
        to: dates.get(entryNumber(n.nrWpisuWykr) ?? 0) ?? null,
      })),
    seat: isObject(seat)
      ? {
          town: text(seat.miejscowosc),
          municipality: text(seat.gmina),
          county: text(seat.powiat),
          voivodeship: text(seat.wojewodztwo),
          country: text(seat.kraj),
        }
      : null,
    shareCapital:
      isObject(capital) && capitalValue !== null
        ? { value: capitalValue, currency: text(capital.waluta) ?? "PLN" }
        : null,
    activities: [
      ...listInForce(scope.przedmiotPrzewazajacejDzialalnosci).flatMap(activity(true)),
      ...listInForce(scope.przedmiotPozostalejDzialalnosci).flatMap(activity(false)),
    ],
    publicBenefit: typeof opp === "boolean" ? opp : null,
    lastEntry,
  };
}
