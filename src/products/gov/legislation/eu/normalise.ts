// Cellar SPARQL rows into legislation answers (EU extra: cellarUri). One work may come in several
// rows (several types, dates or ELIs): the first value of each is kept, the earliest entry into force.
import type { IdParse } from "../../shared/query.ts";
import type { IndexEntry } from "../../shared/title-index.ts";
import type { ActSummaryBody, LegislationDatesBody, StoredAct } from "../answers.ts";
import type { SparqlBinding } from "../sparql.ts";

export interface EuExtras {
  cellarUri: string;
}
export type EuSearchItem = ActSummaryBody & EuExtras;
export type EuAct = StoredAct<EuExtras>;

const CELEX = /^[0-9CE]\d{4}[A-Z]{1,2}\d{4}(?:\(\d{1,2}\))?$/;

/** A pasted EUR-Lex URL's escapes decoded; text with a bare `%` is read as it is. */
function decodedOrAsIs(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A CELEX number (32016R0679), also as "CELEX:32016R0679" or inside a EUR-Lex URL (…?uri=CELEX:32016R0679). */
export function parseCelex(raw: string): IdParse<string> {
  const fromText = /(?:^|[=:])\s*([0-9CE]\d{4}[A-Za-z]{1,2}\d{4}(?:\(\d{1,2}\))?)\s*$/.exec(
    decodedOrAsIs(raw),
  );
  const id = (fromText?.[1] ?? raw).trim().toUpperCase();
  if (!CELEX.test(id)) {
    return {
      error:
        "id must be a CELEX number: sector, year, type letter(s), four-digit number, e.g. 32016R0679 " +
        "(the GDPR) or 32011L0083",
    };
  }
  return { id };
}

const eurLexUrl = (celex: string) =>
  `https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:${encodeURIComponent(celex)}`;

const value = (row: SparqlBinding, name: string) => row[name]?.value?.trim() || undefined;
const first = (rows: SparqlBinding[], name: string) =>
  rows.map((r) => value(r, name)).find((v) => v !== undefined);
const isoDate = (v: string | undefined) => (v && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : undefined);

/** The resource type's code (…/resource-type/REG_IMPL → REG_IMPL). */
const typeCode = (uri: string | undefined) => (uri ? (uri.split("/").at(-1) ?? null) : null);

/** "Regulation (EU) 2016/679", "Council Directive 93/13/EEC": the citation the English title starts with. */
export function citationFromTitle(title: string): string | null {
  const match =
    /^((?:[A-Z][a-z]+ )*(?:Regulation|Directive|Decision)(?: \((?:EU|EC|EEC|Euratom|EU, Euratom|ECSC)\))?(?: No)? \d{1,4}\/\d{1,4}(?:\/(?:EU|EC|EEC|Euratom|CFSP|JHA|ECSC))?)\b/.exec(
      title,
    );
  return match?.[1] ?? null;
}

function status(force: boolean | null): string | null {
  if (force === null) return null;
  return force ? "in force" : "no longer in force";
}

const forceOf = (v: string | undefined) =>
  v === "true" || v === "1" ? true : v === "false" || v === "0" ? false : null;

/** One act from the rows of actQuery(); undefined when Cellar has no work with that CELEX. */
export function normaliseAct(celex: string, rows: SparqlBinding[], apiUrl: string): EuAct | undefined {
  const work = first(rows, "work");
  if (!work) return undefined;
  const title = first(rows, "title") ?? celex;
  const inForce = forceOf(first(rows, "force"));
  const dates: LegislationDatesBody = {};
  const adopted = isoDate(first(rows, "date"));
  if (adopted) dates.adopted = adopted;
  const entries = rows.map((r) => isoDate(value(r, "eif"))).filter((d): d is string => d !== undefined);
  if (entries.length > 0) dates.entryIntoForce = entries.sort()[0];
  const end = isoDate(first(rows, "eov"));
  // 9999-12-31 is Cellar's "no end of validity".
  if (end && !end.startsWith("9999")) dates.endOfValidity = end;
  return {
    id: celex,
    title,
    type: typeCode(first(rows, "type")),
    citation: citationFromTitle(title),
    inForce,
    status: status(inForce),
    dates,
    sourceUrl: eurLexUrl(celex),
    eli: first(rows, "eli") ?? null,
    apiUrl,
    cellarUri: work,
  };
}

/** The index entry of one CELEX from its rows of indexPageQuery(); undefined without an English title. */
export function indexEntryOf(celex: string, group: SparqlBinding[]): IndexEntry | undefined {
  const title = first(group, "title");
  const work = first(group, "work");
  if (!title || !work) return undefined;
  const inForce = forceOf(first(group, "force"));
  const adopted = isoDate(first(group, "date"));
  const item: EuSearchItem = {
    id: celex,
    title,
    type: typeCode(first(group, "type")),
    citation: citationFromTitle(title),
    inForce,
    status: status(inForce),
    dates: adopted ? { adopted } : {},
    sourceUrl: eurLexUrl(celex),
    eli: first(group, "eli") ?? null,
    cellarUri: work,
  };
  return { id: celex, title, alt: [celex, item.citation].filter(Boolean).join(" "), body: item };
}

/** Index entries from rows of indexPageQuery(), one per CELEX, in the order the CELEX numbers came. */
export function indexEntriesOf(rows: SparqlBinding[]): IndexEntry[] {
  const byCelex = new Map<string, SparqlBinding[]>();
  for (const row of rows) {
    const celex = value(row, "celex");
    if (!celex) continue;
    byCelex.set(celex, [...(byCelex.get(celex) ?? []), row]);
  }
  return [...byCelex].map(([celex, group]) => indexEntryOf(celex, group)).filter((e) => e !== undefined);
}
