// legislation.gov.uk Atom feeds and CLML metadata into legislation answers (spec 2.5, UK extras: description,
// year, inForceNote, extent). `inForce` is false only when the act is marked repealed; otherwise null, because
// legislation.gov.uk does not assert that a whole act is in force.
import { XMLParser } from "fast-xml-parser";
import type { IdParse } from "../../shared/query.ts";
import type { ActSummaryBody, LegislationDatesBody, StoredAct } from "../answers.ts";
import { SITE } from "./upstream.ts";

/** Type codes of legislation.gov.uk's URIs (uris.md), UK, devolved, Northern Irish and EU-origin. */
export const GB_TYPES = [
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

const ID_SHAPE = new RegExp(
  `^(?:https?://(?:www\\.)?legislation\\.gov\\.uk/)?(?:id/)?(${GB_TYPES.join("|")})/(\\d{4})/(\\d{1,5})(?:/.*)?$`,
  "i",
);

export type GbId = `${string}/${number}/${number}`;

/** `ukpga/2018/12`, also as a legislation.gov.uk URL (with /id/ or a version or /contents after it). */
export function parseGbId(raw: string): IdParse<GbId> {
  const match = ID_SHAPE.exec(raw.trim());
  if (!match) {
    return {
      error:
        "id must be a legislation.gov.uk id type/year/number, e.g. ukpga/2018/12 or uksi/2012/632 " +
        "(type one of ukpga, uksi, asp, ssi, nia, nisr, anaw, wsi, …)",
    };
  }
  const [, type, year, number] = match;
  return { id: `${type?.toLowerCase()}/${Number(year)}/${Number(number)}` as GbId };
}

export interface GbExtras {
  description: string | null;
  year: number | null;
  inForceNote: string;
  extent: string | null;
}
export type GbSearchItem = ActSummaryBody & { description: string | null; year: number | null };
export type GbAct = StoredAct<GbExtras>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => name === "entry" || name === "link" || name === "DateTime",
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

function idFromUri(uri: string | null): string | null {
  const parsed = uri ? parseGbId(uri) : undefined;
  return parsed && "id" in parsed ? parsed.id : null;
}

/** How legislation.gov.uk's users cite an act of the commonest types; null for the rest. */
export function citationOf(id: string): string | null {
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

export interface GbSearch {
  totalCount: number | null;
  items: GbSearchItem[];
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
    const title = text(entry.title);
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
  const total = Number(text(feed.totalResults));
  return { totalCount: Number.isInteger(total) && total >= 0 ? total : null, items };
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
