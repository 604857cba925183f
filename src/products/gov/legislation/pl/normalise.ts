// Sejm ELI acts → our legislation answers. Ids are the ELI path: DU/2018/1000 (publisher/year/position).
import type { LegislationDatesBody, StoredAct } from "../answers.ts";

interface PlActId {
  id: string;
  publisher: "DU" | "MP";
  year: number;
  pos: number;
}

const ELI = /^(DU|MP)\/(\d{4})\/(\d{1,5})$/i;
const ADDRESS = /^W(DU|MP)(\d{4})(\d{3})(\d{4})$/i;
const DISPLAY = /^(Dz\.\s?U\.|M\.\s?P\.)\s*(\d{4})\s*(?:nr\s*\d+\s*)?poz\.\s*(\d{1,5})$/i;

/** DU/2018/1000, the ISAP address WDU20180001000, or "Dz.U. 2018 poz. 1000" → DU/2018/1000. */
export function parsePlId(raw: string): { id: string } | { error: string } {
  const text = raw.trim();
  let found: [string, string, string] | undefined;
  const eli = ELI.exec(text);
  const address = ADDRESS.exec(text);
  const display = DISPLAY.exec(text);
  if (eli) found = [eli[1] as string, eli[2] as string, eli[3] as string];
  else if (address) found = [address[1] as string, address[2] as string, address[4] as string];
  else if (display)
    found = [/^D/i.test(display[1] as string) ? "DU" : "MP", display[2] as string, display[3] as string];
  const year = Number(found?.[1]);
  const pos = Number(found?.[2]);
  if (!found || year < 1918 || year > 2100 || pos < 1) {
    return { error: "id must be a Polish ELI as publisher/year/position, e.g. DU/2018/1000 (DU or MP)" };
  }
  return { id: `${found[0].toUpperCase()}/${year}/${pos}` };
}

export function splitPlId(id: string): PlActId {
  const [publisher, year, pos] = id.split("/");
  return { id, publisher: publisher as "DU" | "MP", year: Number(year), pos: Number(pos) };
}

export interface SejmAct {
  address?: string;
  ELI?: string;
  displayAddress?: string;
  publisher?: string;
  year?: number;
  pos?: number;
  title?: string;
  type?: string | null;
  status?: string | null;
  inForce?: string | null;
  announcementDate?: string | null;
  promulgation?: string | null;
  entryIntoForce?: string | null;
  validFrom?: string | null;
  repealDate?: string | null;
  expirationDate?: string | null;
  changeDate?: string | null;
  keywords?: string[] | null;
}

export interface SejmSearch {
  count?: number;
  totalCount?: number;
  items?: SejmAct[];
}

export interface PlExtras {
  /** The act's ISAP keywords; null where the upstream did not give them (search results may not). */
  keywords: string[] | null;
}

export type PlAct = StoredAct<PlExtras>;
type PlSearchItem = Omit<PlAct, "apiUrl">;

const NOT_IN_FORCE_STATUS = new Set([
  "uchylony",
  "uznany za uchylony",
  "wygaśnięcie aktu",
  "wygaśnięcie",
  "nieobowiązujący",
]);

/** inForce is the reliable flag; without it, the free-text status decides where it is unambiguous. */
export function inForceOf(act: Pick<SejmAct, "inForce" | "status">): boolean | null {
  if (act.inForce === "IN_FORCE") return true;
  if (act.inForce === "NOT_IN_FORCE") return false;
  if (act.inForce === "UNKNOWN") return null;
  const status = act.status?.trim().toLowerCase();
  if (status === "obowiązujący") return true;
  if (status && NOT_IN_FORCE_STATUS.has(status)) return false;
  return null;
}

const day = (value: string | null | undefined) =>
  value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;

function datesOf(act: SejmAct): LegislationDatesBody {
  const dates: LegislationDatesBody = {};
  const put = (key: keyof LegislationDatesBody, value: string | null | undefined) => {
    const iso = day(value);
    if (iso) dates[key] = iso;
  };
  put("adopted", act.announcementDate);
  put("published", act.promulgation);
  put("entryIntoForce", act.entryIntoForce);
  put("validFrom", act.validFrom);
  put("repealed", act.repealDate);
  put("endOfValidity", act.expirationDate);
  put("updated", act.changeDate);
  return dates;
}

const isapUrl = (address: string) => `https://isap.sejm.gov.pl/isap.nsf/DocDetails.xsp?id=${address}`;
const eliUri = (id: string) => `https://eli.gov.pl/eli/${id}/ogl`;

/** An act of the API as served; undefined when it lacks its identity (ELI, title). */
export function normaliseAct(act: SejmAct): PlSearchItem | undefined {
  const parsed = act.ELI ? parsePlId(act.ELI) : undefined;
  if (!parsed || "error" in parsed || !act.title) return undefined;
  const id = parsed.id;
  return {
    id,
    title: act.title.trim(),
    type: act.type ?? null,
    citation: act.displayAddress ?? null,
    inForce: inForceOf(act),
    status: act.status ?? null,
    dates: datesOf(act),
    sourceUrl: act.address ? isapUrl(act.address) : eliUri(id),
    eli: eliUri(id),
    keywords: Array.isArray(act.keywords) ? act.keywords.filter((k) => typeof k === "string") : null,
  };
}

export function normaliseSearch(search: SejmSearch): { totalCount: number | null; items: PlSearchItem[] } {
  const items = (search.items ?? []).flatMap((act) => normaliseAct(act) ?? []);
  return { totalCount: typeof search.totalCount === "number" ? search.totalCount : null, items };
}
