// legislation.gov.uk Atom feeds and CLML metadata into legislation answers (UK extras: description,
// year, inForceNote, extent). `inForce` is false only when the act is marked repealed; otherwise null, because
// legislation.gov.uk does not assert that a whole act is in force.
import { XMLParser } from "fast-xml-parser";
import type { IdParse } from "../../shared/query.ts";
import type { ActSummaryBody, LegislationDatesBody, StoredAct } from "../answers.ts";
import { SITE } from "./upstream.ts";

/** Type codes of legislation.gov.uk's URIs (uris.md), UK, devolved, Northern Irish and EU-origin. */
const GB_TYPES = [
  "ukpga",
  "ukla",
  "ukppa",
  "asp",
  "asc",
  "anaw",
  "mwa",
  "ukcm",
  "nia",
  "aosp",
  "aep",
  "aip",
  "apgb",
  "gbla",
  "gbppa",
  "nisi",
  "mnia",
  "apni",
  "uksi",
  "wsi",
  "ssi",
  "nisr",
  "ukci",
  "ukmd",
  "ukmo",
  "uksro",
  "nisro",
  "ukdsi",
  "sdsi",
  "wdsi",
  "nidsr",
  "eur",
  "eudn",
  "eudr",
  "eut",
] as const;

const TYPES = GB_TYPES.join("|");
/** Calendar-year ids (ukpga/2018/12) and, for acts before 1963, regnal-year ids (ukpga/Geo5/4-5/1,
 * ukpga/Will4and1Vict/7/73): the monarch(s) and the session's regnal year(s), as model/uris.md describes them. */
const ID_SHAPE = new RegExp(
  "^(?:https?://(?:www\\.)?legislation\\.gov\\.uk)?/?(?:id/)?" +
    `(${TYPES})/(?:(\\d{4})|([a-z]+\\d*(?:and\\d*[a-z]+\\d*)*)/(\\d{1,3}(?:-\\d{1,3})?))/(\\d{1,5})(?:/.*)?$`,
  "i",
);

type GbId = string;

/** Geo5, Will4and1Vict, WillandMar, Eliz2: legislation.gov.uk's spelling, whatever the case asked. */
function canonicalMonarchs(raw: string): string {
  return raw
    .split(/and/i)
    .map((part) =>
      part.replace(
        /^(\d*)([a-z])([a-z]*)(\d*)$/i,
        (_m, pre, first, rest, post) => `${pre}${first.toUpperCase()}${rest.toLowerCase()}${post}`,
      ),
    )
    .join("and");
}

/** ukpga/2018/12 or ukpga/Geo5/4-5/1, also as a legislation.gov.uk URL (/id/, a version or /contents after it). */
export function parseGbId(raw: string): IdParse<GbId> {
  const match = ID_SHAPE.exec(raw.trim());
  if (!match) {
    return {
      error:
        "id must be a legislation.gov.uk id type/year/number, e.g. ukpga/2018/12 or uksi/2012/632, or for acts " +
        "before 1963 type/regnal year/number, e.g. ukpga/Geo5/4-5/1 (type one of ukpga, uksi, asp, ssi, nia, " +
        "nisr, anaw, wsi, ukla, …)",
    };
  }
  const [, type, year, monarchs, session, number] = match;
  const when = year ? String(Number(year)) : `${canonicalMonarchs(monarchs ?? "")}/${session}`;
  return { id: `${type?.toLowerCase()}/${when}/${Number(number)}` };
}

/** A regnal-year id (four segments) rather than a calendar-year one. */
const isRegnalId = (id: string) => id.split("/").length === 4;

export interface GbExtras {
  description: string | null;
  year: number | null;
  inForceNote: string;
  extent: string | null;
}
type GbSearchItem = ActSummaryBody & { description: string | null; year: number | null };
export type GbAct = StoredAct<GbExtras>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) =>
    name === "entry" || name === "link" || name === "DateTime" || name === "facetType" || name === "span",
});

type Node = Record<string, unknown>;

function parseXml(xml: string, what: string): Node {
  try {
    return parser.parse(xml) as Node;
  } catch {
    throw new Error(`${what} is not well-formed XML (maintenance page?)`);
  }
}

function text(value: unknown): string | null {
  if (typeof value === "string") return value.replace(/\s+/g, " ").trim() || null;
  if (value && typeof value === "object" && "#text" in value) return text((value as Node)["#text"]);
  return null;
}
const attr = (node: unknown, name: string): string | null =>
  node && typeof node === "object" ? text((node as Node)[`@${name}`]) : null;
const isoDate = (value: string | null): string | undefined =>
  value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;

/**
 * An entry's title: plain text, or (seen in real feeds of bilingual items) an XHTML div with one span per
 * language, of which the English one is taken.
 */
function titleOf(value: unknown): string | null {
  const div = value && typeof value === "object" ? (value as Node).div : undefined;
  if (!div || typeof div !== "object") return text(value);
  const spans = ((div as Node).span as Node[] | undefined) ?? [];
  const english = spans.find((span) => attr(span, "lang") === "en") ?? spans[0];
  return text(english) ?? text(div);
}

function idFromUri(uri: string | null): string | null {
  const parsed = uri ? parseGbId(uri) : undefined;
  return parsed && "id" in parsed ? parsed.id : null;
}

/** How legislation.gov.uk's users cite an act of the commonest types; null for the rest. */
export function citationOf(id: string): string | null {
  // Regnal-year acts are cited as "4 & 5 Geo. 5 c. 1"; the feed does not give that form, so none is made up.
  if (isRegnalId(id)) return null;
  const [type, year, number] = id.split("/");
  switch (type) {
    case "ukpga":
      return `${year} c. ${number}`;
    case "asp":
      return `${year} asp ${number}`;
    case "anaw":
      return `${year} anaw ${number}`;
    case "asc":
      return `${year} asc ${number}`;
    case "nia":
      return `${year} c. ${number} (N.I.)`;
    case "uksi":
      return `S.I. ${year}/${number}`;
    case "ssi":
      return `S.S.I. ${year}/${number}`;
    case "wsi":
      return `W.S.I. ${year}/${number}`;
    case "nisr":
      return `S.R. ${year}/${number}`;
    default:
      return null;
  }
}

interface GbSearch {
  totalCount: number | null;
  items: GbSearchItem[];
}

/**
 * All matches of a search. `openSearch:totalResults` only counts the page (it reads 20 for a search with 896
 * matches), so the total is the sum of the type facets' counts (`leg:facetType/@value`, each item has one type);
 * a feed without facets is counted only when it is its one and only page; otherwise the total is unknown.
 */
function totalOf(feed: Node, entries: number): number | null {
  const facetTypes = ((feed.facets as Node | undefined)?.facetTypes as Node | undefined)?.facetType as
    | Node[]
    | undefined;
  const counts = (facetTypes ?? []).map((facet) => Number(attr(facet, "value")));
  if (counts.length > 0 && counts.every((n) => Number.isInteger(n) && n >= 0)) {
    return counts.reduce((a, b) => a + b, 0);
  }
  const page = Number(text(feed.page) ?? "1");
  const morePages = Number(text(feed.morePages));
  if (page === 1 && morePages === 0) return entries;
  return null;
}

/** The Atom search feed; an answer that is not a feed (an HTML maintenance page served with 200) is an error. */
export function normaliseSearchFeed(xml: string): GbSearch {
  const feed = parseXml(xml, "The search feed").feed as Node | undefined;
  if (!feed || typeof feed !== "object")
    throw new Error("the search answer is not an Atom feed (maintenance page?)");
  const entries = (feed.entry as Node[] | undefined) ?? [];
  const items: GbSearchItem[] = [];
  for (const entry of entries) {
    const id = idFromUri(text(entry.id));
    const title = titleOf(entry.title);
    if (!id || !title) continue;
    const adopted = isoDate(attr(entry.CreationDate, "Date"));
    const year = Number(attr(entry.Year, "Value"));
    items.push({
      id,
      title,
      type: attr(entry.DocumentMainType, "Value"),
      citation: citationOf(id),
      inForce: null,
      status: null,
      dates: adopted ? { adopted } : {},
      sourceUrl: `${SITE}/${id}`,
      eli: null,
      description: text(entry.summary),
      year: Number.isInteger(year) && year > 0 ? year : null,
    });
  }
  return { totalCount: totalOf(feed, entries.length), items };
}

const fold = (value: string) =>
  value
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** How well a title matches the query: 0 the title itself, 1 its start, 2 a phrase in it, 3 all its words, 4 other. */
export function titleMatchRank(title: string, query: string): number {
  // Most statutory instruments' titles start with "The": "The Data Protection (Charges …) Regulations 2018".
  const t = fold(title).replace(/^the /, "");
  const q = fold(query).replace(/^the /, "");
  if (!q) return 4;
  if (t === q) return 0;
  if (t.startsWith(`${q} `)) return 1;
  if (` ${t} `.includes(` ${q} `)) return 2;
  const words = new Set(t.split(" "));
  return q.split(" ").every((word) => words.has(word)) ? 3 : 4;
}

const PRIMARY = /Act$|Measure$|^(?:UnitedKingdom|Scottish|Welsh|NorthernIreland)\w*Act/;

/**
 * The feed's entries ranked by title match (legislation.gov.uk orders its feeds by modification date and has no
 * relevance order; its `sort=title` is alphabetical): the match rank above, then Acts before instruments, then
 * the shorter title, then the newer year; the feed's order breaks remaining ties.
 */
export function rankByTitleMatch<Item extends GbSearchItem>(items: Item[], query: string): Item[] {
  return items
    .map((item, order) => ({
      item,
      order,
      rank: titleMatchRank(item.title, query),
      primary: PRIMARY.test(item.type ?? "") ? 0 : 1,
    }))
    .sort(
      (a, b) =>
        a.rank - b.rank ||
        a.primary - b.primary ||
        a.item.title.length - b.item.title.length ||
        (b.item.year ?? 0) - (a.item.year ?? 0) ||
        a.order - b.order,
    )
    .map((ranked) => ranked.item);
}

interface GbChoice {
  id: string;
  title: string;
}

/** Cached in place of an act for an id legislation.gov.uk answered with 300 Multiple Choices. */
export interface GbAmbiguous {
  ambiguous: true;
  choices: GbChoice[];
  apiUrl: string;
}

export const isAmbiguous = (body: unknown): body is GbAmbiguous =>
  typeof body === "object" && body !== null && (body as GbAmbiguous).ambiguous === true;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#39": "'" };

/**
 * The acts a 300 Multiple Choices answer lists, once each: an XHTML list of links to the acts, `/id/…` in the
 * docs (model/uris.md) and without /id/ in a real answer (`<li><a href="/ukpga/Geo5/4-5/1">Consolidated Fund
 * (No. 1) Act 1914</a></li>`); links that are not act ids (the page's navigation) are left out.
 */
export function choicesOf(html: string): GbChoice[] {
  const choices = new Map<string, GbChoice>();
  for (const match of html.matchAll(/<a\s[^>]*href="([^"]+)"[^>]*>([\s\S]*?)<\/a>/gi)) {
    const id = idFromUri(match[1] ?? "");
    const title = (match[2] ?? "")
      .replace(/<[^>]+>/g, "")
      .replace(/&(amp|lt|gt|quot|apos|#39);/g, (_m, name: string) => ENTITIES[name] ?? "")
      .replace(/\s+/g, " ")
      .trim();
    if (id && !choices.has(id)) choices.set(id, { id, title });
  }
  return [...choices.values()];
}

/** Ids of the acts in the new-items feed. */
export function newItemIds(xml: string): string[] {
  return normaliseSearchFeed(xml).items.map((item) => item.id);
}

/** One act from its CLML table of contents (root attributes and ukm:Metadata). */
export function normaliseActContents(xml: string, apiUrl: string, today = new Date()): GbAct {
  const root = parseXml(xml, "The act's data.xml").Legislation as Node | undefined;
  if (!root || typeof root !== "object") {
    throw new Error("the act's data.xml has no <Legislation> root (maintenance page?)");
  }
  const meta = (root.Metadata ?? {}) as Node;
  const typed = (meta.PrimaryMetadata ?? meta.SecondaryMetadata ?? meta.EUMetadata ?? {}) as Node;
  const classification = (typed.DocumentClassification ?? {}) as Node;
  const id =
    idFromUri(attr(root, "IdURI")) ??
    idFromUri(attr(root, "DocumentURI")) ??
    idFromUri(text(meta.identifier));
  const title = text(meta.title);
  if (!id || !title) throw new Error("the act's data.xml has no identifier or title");

  const documentStatus = attr(classification.DocumentStatus, "Value");
  const rootStatus = attr(root, "Status");
  const startDate = isoDate(attr(root, "RestrictStartDate"));
  const endDate = isoDate(attr(root, "RestrictEndDate"));
  const repealed =
    rootStatus?.toLowerCase() === "repealed" ||
    (endDate !== undefined && endDate <= today.toISOString().slice(0, 10));
  const comingIntoForce = (typed.ComingIntoForce as Node | undefined)?.DateTime as Node[] | undefined;

  const dates: LegislationDatesBody = {};
  const adopted = isoDate(attr(typed.EnactmentDate, "Date") ?? attr(typed.Made, "Date"));
  if (adopted) dates.adopted = adopted;
  const entryIntoForce = isoDate(attr(comingIntoForce?.[0], "Date"));
  if (entryIntoForce) dates.entryIntoForce = entryIntoForce;
  if (startDate) dates.validFrom = startDate;
  if (endDate) dates[repealed ? "repealed" : "endOfValidity"] = endDate;
  const validAt = isoDate(text(meta.valid));
  if (validAt) dates.validAt = validAt;
  const updated = isoDate(text(meta.modified));
  if (updated) dates.updated = updated;

  const year = Number(attr(typed.Year, "Value"));
  return {
    id,
    title,
    type: attr(classification.DocumentMainType, "Value"),
    citation: citationOf(id),
    inForce: repealed ? false : null,
    status: repealed ? "Repealed" : (rootStatus ?? documentStatus),
    dates,
    sourceUrl: `${SITE}/${id}/contents`,
    eli: null,
    apiUrl,
    description: text(meta.description),
    year: Number.isInteger(year) && year > 0 ? year : null,
    inForceNote: inForceNote({ repealed, endDate, rootStatus, documentStatus, startDate }),
    extent: attr(root, "RestrictExtent"),
  };
}

function inForceNote(o: {
  repealed: boolean;
  endDate: string | undefined;
  rootStatus: string | null;
  documentStatus: string | null;
  startDate: string | undefined;
}): string {
  if (o.repealed) {
    return `Marked repealed${o.endDate ? ` (ceased ${o.endDate})` : ""} in the revised text of legislation.gov.uk.`;
  }
  if (o.rootStatus?.toLowerCase() === "prospective") {
    return "Marked prospective: not yet in force as a whole. inForce is null: legislation.gov.uk marks repeals only.";
  }
  if (o.documentStatus === "final") {
    return "Only the original (enacted or made) version is published: legislation.gov.uk gives no in-force data for it.";
  }
  return (
    `Not marked repealed${o.startDate ? `; in the revised text from ${o.startDate}` : ""}. inForce is null: ` +
    "legislation.gov.uk marks repeals but does not assert that a whole act is in force (amendments may be unapplied)."
  );
}
