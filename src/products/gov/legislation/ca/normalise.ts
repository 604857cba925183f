// Justice Laws XML → our index entries and act answers. The id is the act's code (UniqueId): C-46,
// SOR-2007-151, C.R.C.,_c._986.
import { XMLParser } from "fast-xml-parser";
import type { IndexEntry } from "../../shared/title-index.ts";
import type { LegislationDatesBody, StoredAct } from "../answers.ts";

const ACT_CODE = /^[A-Z]{1,2}-\d+(?:\.\d+)*$/;
const REG_CODE = /^(?:SOR|SI)-\d{2,4}-\d+$/;
const CRC_CODE = /^C\.R\.C\.,_C\._\d+$/;

/** C-46, SOR-2007-151 (or SOR/2007-151), C.R.C., c. 986 → the UniqueId Justice Laws uses. */
export function parseCaCode(raw: string): { code: string } | { error: string } {
  const text = raw
    .trim()
    .toUpperCase()
    .replace(/^(SOR|SI)\//, "$1-")
    .replace(/^C\.R\.C\.,?\s*C\.\s*/, "C.R.C.,_C._");
  if (ACT_CODE.test(text) || REG_CODE.test(text)) return { code: text };
  if (CRC_CODE.test(text)) return { code: text.replace("_C._", "_c._") };
  return {
    error:
      "code must be a Justice Laws code: an act such as C-46 or A-1, a regulation such as SOR-2007-151, or C.R.C.,_c._986",
  };
}

// --- Legis.xml ---------------------------------------------------------------------------------------

interface LegisRecord {
  kind: "act" | "regulation";
  id: string | null;
  olid: string | null;
  code: string;
  lang: string;
  officialNumber: string | null;
  title: string;
  xmlUrl: string | null;
  tocUrl: string | null;
  currentToDate: string | null;
}

const listParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => name === "Act" || name === "Regulation",
});

const str = (value: unknown): string | null => {
  if (typeof value === "string") return value.trim() || null;
  if (value && typeof value === "object" && "#text" in value)
    return str((value as { "#text": unknown })["#text"]);
  return null;
};
const day = (value: string | null | undefined) =>
  value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;
const https = (url: string | null) => (url ? url.replace(/^http:\/\//, "https://") : null);

/** Every record of Legis.xml; a file without the ActsRegsList root (a maintenance page) is an error. */
export function parseLegis(xml: string): LegisRecord[] {
  let doc: { ActsRegsList?: { Acts?: { Act?: unknown[] }; Regulations?: { Regulation?: unknown[] } } };
  try {
    doc = listParser.parse(xml.replace(/^\uFEFF/, ""));
  } catch {
    throw new Error("Legis.xml is not well-formed XML");
  }
  if (!doc.ActsRegsList || typeof doc.ActsRegsList !== "object")
    throw new Error("Legis.xml has no <ActsRegsList> (maintenance page?)");
  const records: LegisRecord[] = [];
  const read = (kind: LegisRecord["kind"], list: unknown[] | undefined) => {
    for (const raw of list ?? []) {
      const r = raw as Record<string, unknown>;
      const code = str(r.UniqueId);
      const title = str(r.Title);
      if (!code || !title) continue;
      records.push({
        kind,
        id: str(r["@_id"]),
        olid: str(r["@_olid"]),
        code,
        lang: str(r.Language) ?? "eng",
        officialNumber: str(r.OfficialNumber),
        title,
        xmlUrl: https(str(r.LinkToXML)),
        tocUrl: https(str(r.LinkToHTMLToC)),
        currentToDate: day(str(r.CurrentToDate)),
      });
    }
  };
  read("act", doc.ActsRegsList.Acts?.Act);
  read("regulation", doc.ActsRegsList.Regulations?.Regulation);
  return records;
}

/** What the index keeps of an act: its English record with the French title joined. */
export interface CaIndexItem {
  code: string;
  kind: "act" | "regulation";
  officialNumber: string | null;
  titleEn: string;
  titleFr: string | null;
  currentToDate: string | null;
  xmlUrl: string;
  sourceUrl: string;
}

const SITE = "https://laws-lois.justice.gc.ca";

/** English records, each with its French title (by olid, else by the same code in French). */
export function indexItems(records: LegisRecord[]): CaIndexItem[] {
  const french = records.filter((r) => r.lang === "fra");
  const frenchById = new Map(french.flatMap((r) => (r.id ? [[r.id, r] as const] : [])));
  const frenchByCode = new Map(french.map((r) => [`${r.kind}:${r.code}`, r] as const));
  const seen = new Set<string>();
  const items: CaIndexItem[] = [];
  for (const r of records) {
    if (r.lang !== "eng" || seen.has(r.code)) continue;
    seen.add(r.code);
    const fr = (r.olid ? frenchById.get(r.olid) : undefined) ?? frenchByCode.get(`${r.kind}:${r.code}`);
    items.push({
      code: r.code,
      kind: r.kind,
      officialNumber: r.officialNumber,
      titleEn: r.title,
      titleFr: fr?.title ?? null,
      currentToDate: r.currentToDate,
      xmlUrl: r.xmlUrl ?? `${SITE}/eng/XML/${r.code}.xml`,
      sourceUrl: r.tocUrl ?? `${SITE}/eng/${r.kind === "act" ? "acts" : "regulations"}/${r.code}/index.html`,
    });
  }
  return items;
}

export function indexEntries(items: CaIndexItem[]): IndexEntry[] {
  return items.map((item) => ({
    id: item.code,
    title: item.titleEn,
    alt: [item.titleFr, item.code, item.officialNumber].filter(Boolean).join(" "),
    body: item,
  }));
}

// --- one act ----------------------------------------------------------------------------------------

type Ordered = Array<Record<string, unknown>>;

const orderedParser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
});

const tagOf = (node: Record<string, unknown>) => Object.keys(node).find((k) => k !== ":@");
const childrenOf = (node: Record<string, unknown>): Ordered => {
  const tag = tagOf(node);
  const value = tag ? node[tag] : undefined;
  return Array.isArray(value) ? (value as Ordered) : [];
};
const attrsOf = (node: Record<string, unknown>) => (node[":@"] ?? {}) as Record<string, string>;
const find = (nodes: Ordered, tag: string) => nodes.find((n) => tagOf(n) === tag);

/** Text of a subtree in document order; history notes and footnotes are left out. */
function textOf(nodes: Ordered): string {
  const parts: string[] = [];
  const walk = (list: Ordered) => {
    for (const node of list) {
      const tag = tagOf(node);
      if (tag === "#text") parts.push(String(node["#text"]));
      else if (tag && tag !== "HistoricalNote" && tag !== "Footnote") {
        const block =
          /^(Subsection|Paragraph|Subparagraph|Clause|Text|Definition|ContinuedSectionSubsection)$/.test(tag);
        if (block) parts.push(" ");
        walk(childrenOf(node));
      }
    }
  };
  walk(nodes);
  return parts
    .join("")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .replace(/\s+([.,;:])/g, "$1")
    .trim();
}

export interface CaSection {
  label: string | null;
  marginalNote: string | null;
  text: string;
}

interface ParsedActXml {
  kind: "act" | "regulation";
  inForce: boolean | null;
  pitDate: string | null;
  lastAmended: string | null;
  inForceStart: string | null;
  shortTitle: string | null;
  longTitle: string | null;
  consolidatedNumber: string | null;
  instrumentNumber: string | null;
  sections: CaSection[];
}

export function parseActXml(xml: string): ParsedActXml {
  let doc: Ordered;
  try {
    doc = orderedParser.parse(xml.replace(/^\uFEFF/, "")) as Ordered;
  } catch {
    throw new Error("act XML is not well-formed");
  }
  const root = doc.find((n) => tagOf(n) === "Statute" || tagOf(n) === "Regulation");
  if (!root) throw new Error("act XML has no <Statute> or <Regulation> root (maintenance page?)");
  const attrs = attrsOf(root);
  const body = childrenOf(root);
  const identification = childrenOf(find(body, "Identification") ?? {});
  const textIn = (nodes: Ordered, tag: string) => {
    const node = find(nodes, tag);
    return node ? textOf(childrenOf(node)) || null : null;
  };
  const chapter = childrenOf(find(identification, "Chapter") ?? {});
  const sections: CaSection[] = [];
  const collect = (nodes: Ordered) => {
    for (const node of nodes) {
      const tag = tagOf(node);
      if (tag === "Section") {
        const parts = childrenOf(node);
        sections.push({
          label: textIn(parts, "Label"),
          marginalNote: textIn(parts, "MarginalNote"),
          text: textOf(parts.filter((p) => tagOf(p) !== "Label" && tagOf(p) !== "MarginalNote")),
        });
      } else if (tag && tag !== "#text" && tag !== "Schedule") collect(childrenOf(node));
    }
  };
  collect(childrenOf(find(body, "Body") ?? {}));
  const inForce = attrs["@_in-force"];
  return {
    kind: tagOf(root) === "Statute" ? "act" : "regulation",
    inForce: inForce === "yes" ? true : inForce === "no" ? false : null,
    pitDate: day(attrs["@_lims:pit-date"]),
    lastAmended: day(attrs["@_lims:lastAmendedDate"]),
    inForceStart: day(attrs["@_lims:inforce-start-date"]),
    shortTitle: textIn(identification, "ShortTitle"),
    longTitle: textIn(identification, "LongTitle"),
    consolidatedNumber: textIn(chapter, "ConsolidatedNumber"),
    instrumentNumber: textIn(identification, "InstrumentNumber"),
    sections,
  };
}

export interface CaExtras {
  code: string;
  consolidatedNumber: string | null;
  titleEn: string;
  titleFr: string | null;
  longTitleEn: string | null;
  lastAmended: string | null;
  pitDate: string | null;
  currentToDate: string | null;
  xmlUrl: string;
  scrapedAt: string;
  lang: "en";
  timezone: string;
}

export type CaAct = StoredAct<CaExtras> & { sections: CaSection[] };

/** Dates in Justice Laws files are Ottawa dates. */
const CA_TIMEZONE = "America/Toronto";

export function normaliseAct(
  code: string,
  parsed: ParsedActXml,
  indexed: CaIndexItem | undefined,
  fetched: { url: string; scrapedAt: string },
): CaAct {
  const titleEn = parsed.shortTitle ?? indexed?.titleEn ?? parsed.longTitle ?? code;
  const dates: LegislationDatesBody = {};
  if (parsed.lastAmended) dates.lastAmended = parsed.lastAmended;
  if (parsed.pitDate) dates.versionInForceFrom = parsed.pitDate;
  if (parsed.inForceStart) dates.entryIntoForce = parsed.inForceStart;
  const kind = indexed?.kind ?? parsed.kind;
  return {
    id: code,
    title: titleEn,
    type: kind,
    citation: parsed.instrumentNumber ?? indexed?.officialNumber ?? parsed.consolidatedNumber ?? null,
    inForce: parsed.inForce,
    status: parsed.inForce === false ? "repealed or not in force" : parsed.inForce ? "in force" : null,
    dates,
    sourceUrl:
      indexed?.sourceUrl ?? `${SITE}/eng/${kind === "act" ? "acts" : "regulations"}/${code}/index.html`,
    eli: null,
    apiUrl: fetched.url,
    code,
    consolidatedNumber: parsed.consolidatedNumber,
    titleEn,
    titleFr: indexed?.titleFr ?? null,
    longTitleEn: parsed.longTitle,
    lastAmended: parsed.lastAmended,
    pitDate: parsed.pitDate,
    currentToDate: indexed?.currentToDate ?? null,
    xmlUrl: fetched.url,
    scrapedAt: fetched.scrapedAt,
    lang: "en",
    timezone: CA_TIMEZONE,
    sections: parsed.sections,
  };
}
