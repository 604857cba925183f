// RIS BrKons answers into legislation answers (Austrian extras: shortTitle, abbreviation,
// publishedIn). RIS's JSON is converted from XML: one hit comes as an object instead of an array (also
// ContentReference and ContentUrl), Hits is {"#text": n} or a plain number, and values may be wrapped as
// {"item": …} or {"#text": …}; every read below goes through `list` and `text` for that reason.
import type { IdParse } from "../../shared/query.ts";
import type { ActSummaryBody, LegislationDatesBody, StoredAct } from "../answers.ts";

const RIS_SITE = "https://www.ris.bka.gv.at";

export interface AtExtras {
  shortTitle: string | null;
  abbreviation: string | null;
  publishedIn: string | null;
}
type AtSearchItem = ActSummaryBody & AtExtras;
export type AtAct = StoredAct<AtExtras>;

/** A Gesetzesnummer (8 digits), also inside a RIS URL (…&Gesetzesnummer=10002531). */
export function parseAtId(raw: string): IdParse<string> {
  const fromUrl = /[?&]Gesetzesnummer=(\d{8})(?:&|$)/i.exec(raw);
  const id = fromUrl?.[1] ?? raw.trim();
  if (!/^\d{8}$/.test(id)) {
    return { error: "id must be an 8-digit RIS Gesetzesnummer, e.g. 10002531 (Mietrechtsgesetz)" };
  }
  return { id };
}

type Node = Record<string, unknown>;

/** An XML-converted list: absent, one object, or an array. */
export function list(value: unknown): Node[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).filter(
    (v): v is Node => typeof v === "object" && v !== null,
  );
}

/** A text value that may be wrapped as {"#text": …} or {"item": …} (several items are joined). */
export function text(value: unknown): string | null {
  if (typeof value === "string") return value.replace(/\s+/g, " ").trim() || null;
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) {
    const parts = value.map(text).filter((v): v is string => v !== null);
    return parts.length > 0 ? parts.join(", ") : null;
  }
  if (value && typeof value === "object") {
    const node = value as Node;
    if ("#text" in node) return text(node["#text"]);
    if ("item" in node) return text(node.item);
  }
  return null;
}

const isoDate = (value: unknown): string | undefined => {
  const t = text(value);
  return t && /^\d{4}-\d{2}-\d{2}/.test(t) ? t.slice(0, 10) : undefined;
};

export interface Provision {
  gesetzesnummer: string;
  title: string | null;
  shortTitle: string | null;
  abbreviation: string | null;
  type: string | null;
  publishedIn: string | null;
  validFrom: string | undefined;
  validTo: string | undefined;
  actUrl: string | null;
}

interface RisPage {
  hits: number;
  provisions: Provision[];
}

/** One page of a BrKons answer; a RIS error (OgdSearchResult.Error) or another document is an error. */
export function parseRisPage(json: unknown): RisPage {
  const result = (json as Node | null)?.OgdSearchResult as Node | undefined;
  if (!result || typeof result !== "object") throw new Error("the RIS answer has no OgdSearchResult");
  const error = result.Error as Node | undefined;
  if (error) throw new Error(`RIS refused the search: ${text(error.Message) ?? "no message"}`);
  const results = (result.OgdDocumentResults ?? {}) as Node;
  const hits = Number(text(results.Hits) ?? 0);
  const provisions: Provision[] = [];
  for (const reference of list(results.OgdDocumentReference)) {
    const meta = ((reference.Data as Node | undefined)?.Metadaten ?? {}) as Node;
    const bundesrecht = (meta.Bundesrecht ?? {}) as Node;
    const brKons = (bundesrecht.BrKons ?? {}) as Node;
    const gesetzesnummer = text(brKons.Gesetzesnummer);
    if (!gesetzesnummer) continue;
    provisions.push({
      gesetzesnummer,
      title: text(bundesrecht.Titel) ?? text(bundesrecht.Langtitel),
      shortTitle: text(bundesrecht.Kurztitel),
      abbreviation: text(bundesrecht.Abkuerzung) ?? text(brKons.Abkuerzung),
      type: text(brKons.Typ),
      publishedIn: text(brKons.Kundmachungsorgan),
      validFrom: isoDate(brKons.Inkrafttretensdatum),
      validTo: isoDate(brKons.Ausserkrafttretensdatum),
      actUrl: text(brKons.GesamteRechtsvorschriftUrl),
    });
  }
  return { hits: Number.isFinite(hits) ? hits : provisions.length, provisions };
}

/** The act's ELI, from its original promulgation "BGBl. Nr. 520/1981" or "BGBl. I Nr. 91/2025". */
export function eliOf(publishedIn: string | null): string | null {
  const match = publishedIn ? /^BGBl\.\s*(?:(I{1,3})\s+)?Nr\.\s*(\d+)\/(\d{4})$/.exec(publishedIn) : null;
  if (!match) return null;
  const [, part, number, year] = match;
  return `${RIS_SITE}/eli/bgbl/${part ? `${part}/` : ""}${year}/${number}`;
}

const actPage = (id: string) => `${RIS_SITE}/GeltendeFassung.wxe?Abfrage=Bundesnormen&Gesetzesnummer=${id}`;

function summarise(
  id: string,
  provisions: Provision[],
  inForce: boolean,
  status: string,
  dates: LegislationDatesBody,
) {
  const first = provisions.find((p) => p.title || p.shortTitle) ?? provisions[0];
  const shortTitle = first?.shortTitle ?? null;
  const publishedIn = first?.publishedIn ?? null;
  const summary: AtSearchItem = {
    id,
    title: first?.title ?? shortTitle ?? id,
    type: first?.type ?? null,
    citation: [shortTitle, publishedIn].filter(Boolean).join(", ") || null,
    inForce,
    status,
    dates,
    sourceUrl: first?.actUrl ?? actPage(id),
    eli: eliOf(publishedIn),
    shortTitle,
    abbreviation: first?.abbreviation ?? null,
    publishedIn,
  };
  return summary;
}

const latest = (dates: Array<string | undefined>) =>
  dates
    .filter((d): d is string => d !== undefined)
    .sort()
    .at(-1);
const earliest = (dates: Array<string | undefined>) =>
  dates.filter((d): d is string => d !== undefined).sort()[0];

/** Title-search hits (provisions valid today) grouped into acts, in the order RIS ranked them. */
export function groupSearch(page: RisPage): AtSearchItem[] {
  const byAct = new Map<string, Provision[]>();
  for (const provision of page.provisions) {
    const group = byAct.get(provision.gesetzesnummer) ?? [];
    group.push(provision);
    byAct.set(provision.gesetzesnummer, group);
  }
  return [...byAct].map(([id, provisions]) => {
    const from = latest(provisions.map((p) => p.validFrom));
    return summarise(
      id,
      provisions,
      true,
      "in force (geltende Fassung)",
      from ? { versionInForceFrom: from } : {},
    );
  });
}

/** An act with provisions valid today: in force, the current version in force since its latest provision. */
export function actInForce(id: string, provisions: Provision[], apiUrl: string): AtAct {
  const from = latest(provisions.map((p) => p.validFrom));
  const act = summarise(
    id,
    provisions,
    true,
    "in force (geltende Fassung)",
    from ? { versionInForceFrom: from } : {},
  );
  return { ...act, apiUrl };
}

/** An act with no provision valid today: not yet in force, or repealed on its latest end of validity. */
export function actNotInForce(id: string, provisions: Provision[], apiUrl: string, now = new Date()): AtAct {
  const day = now.toISOString().slice(0, 10);
  const start = earliest(provisions.map((p) => p.validFrom));
  if (start && start > day) {
    return { ...summarise(id, provisions, false, "not yet in force", { entryIntoForce: start }), apiUrl };
  }
  const end = latest(provisions.map((p) => p.validTo));
  return {
    ...summarise(id, provisions, false, "repealed (außer Kraft)", end ? { repealed: end } : {}),
    apiUrl,
  };
}
