// Fedlex SPARQL rows into legislation answers (Swiss extras: srNumber, shortTitle, aliases). Rows
// come one per act × language (× SR notation); they are grouped by act. The German title is the act's title;
// the French and Italian titles and short titles are its aliases.
import type { IdParse } from "../../shared/query.ts";
import type { IndexEntry } from "../../shared/title-index.ts";
import type { ActSummaryBody, LegislationDatesBody, StoredAct } from "../answers.ts";
import type { SparqlBinding } from "../sparql.ts";
import { FEDLEX_DATA } from "./upstream.ts";

export interface ChExtras {
  srNumber: string | null;
  shortTitle: string | null;
  aliases: string[];
}
export type ChSearchItem = ActSummaryBody & ChExtras;
export type ChAct = StoredAct<ChExtras>;

const ELI =
  /^(?:https?:\/\/(?:www\.)?fedlex\.(?:data\.)?admin\.ch\/)?(?:[a-z]{2}\/)?(eli\/cc\/\d{2,4}\/[0-9a-z_]+)(?:\/.*)?$/i;
const SR = /^(?:SR\s*|RS\s*)?((?:0\.)?\d{1,3}(?:\.\d{1,4}){0,4})$/i;

/** An ELI path (eli/cc/2022/491, also as a Fedlex URL) or an SR number (235.1, SR 235.1, 0.101). */
export function parseChId(raw: string): IdParse<string> {
  const eli = ELI.exec(raw.trim());
  if (eli?.[1]) return { id: eli[1].toLowerCase() };
  const sr = SR.exec(raw.trim());
  if (sr?.[1]) return { id: sr[1] };
  return {
    error:
      "id must be an SR number (e.g. 235.1, 0.101) or a Fedlex ELI of the classified compilation " +
      "(e.g. eli/cc/2022/491 or https://www.fedlex.admin.ch/eli/cc/2022/491/de)",
  };
}

export const isEliId = (id: string) => id.startsWith("eli/");

const value = (row: SparqlBinding, name: string) => row[name]?.value?.trim() || undefined;
const isoDate = (v: string | undefined) => (v && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : undefined);

const STATUS: Record<string, { inForce: boolean; status: string }> = {
  "0": { inForce: true, status: "in force" },
  "1": { inForce: false, status: "no longer published in the SR" },
  "3": { inForce: false, status: "no longer in force" },
};

const TYPE_WORDS =
  /^(Bundesverfassung|Bundesgesetz|Bundesbeschluss|Verordnung|Reglement|Geschäftsreglement|Abkommen|Übereinkommen|Vertrag|Staatsvertrag|Vereinbarung|Protokoll|Konvention|Notenaustausch|Briefwechsel)\b/;

function firstOf(rows: SparqlBinding[], name: string, lang?: string): string | undefined {
  for (const row of rows) {
    if (lang && value(row, "lang") !== lang) continue;
    const v = value(row, name);
    if (v) return v;
  }
  return undefined;
}

/** One act from its rows (all of one CA). */
export function actOf(rows: SparqlBinding[]): ChSearchItem | undefined {
  const ca = firstOf(rows, "ca");
  if (!ca?.startsWith(`${FEDLEX_DATA}/eli/`)) return undefined;
  const id = ca.slice(FEDLEX_DATA.length + 1);
  const title = firstOf(rows, "title", "DEU") ?? firstOf(rows, "title");
  if (!title) return undefined;
  const shortTitle = firstOf(rows, "short", "DEU") ?? null;
  const aliases = new Set<string>();
  for (const lang of ["FRA", "ITA"]) {
    for (const name of ["title", "short"]) {
      const alias = firstOf(rows, name, lang);
      if (alias && alias !== title && alias !== shortTitle) aliases.add(alias);
    }
  }
  const srNumber = firstOf(rows, "sr") ?? null;
  const statusCode = firstOf(rows, "status")?.split("/").at(-1);
  const known = statusCode ? STATUS[statusCode] : undefined;
  const dates: LegislationDatesBody = {};
  const adopted = isoDate(firstOf(rows, "doc"));
  if (adopted) dates.adopted = adopted;
  const entry = isoDate(firstOf(rows, "entry"));
  if (entry) dates.entryIntoForce = entry;
  const end = isoDate(firstOf(rows, "end"));
  if (end) dates[known?.inForce === false ? "repealed" : "endOfValidity"] = end;
  return {
    id,
    title,
    type: TYPE_WORDS.exec(title)?.[1] ?? null,
    citation: srNumber ? `SR ${srNumber}` : null,
    inForce: known?.inForce ?? null,
    status: known?.status ?? null,
    dates,
    sourceUrl: `https://www.fedlex.admin.ch/${id}/de`,
    eli: ca,
    srNumber,
    shortTitle,
    aliases: [...aliases],
  };
}

/** Rows grouped by act, in the order they came. */
export function groupRows(rows: SparqlBinding[]): Map<string, SparqlBinding[]> {
  const byCa = new Map<string, SparqlBinding[]>();
  for (const row of rows) {
    const ca = value(row, "ca");
    if (!ca) continue;
    const group = byCa.get(ca) ?? [];
    group.push(row);
    byCa.set(ca, group);
  }
  return byCa;
}

/**
 * The act an id names: an ELI names one; an SR number may name several (reused numbers): the one in force,
 * else the one that entered into force last. `others` lists the rest.
 */
export function chooseAct(rows: SparqlBinding[]): { act: ChSearchItem; others: string[] } | undefined {
  const acts = [...groupRows(rows).values()].map(actOf).filter((a): a is ChSearchItem => a !== undefined);
  if (acts.length === 0) return undefined;
  const ranked = acts.sort(
    (a, b) =>
      Number(b.inForce === true) - Number(a.inForce === true) ||
      (b.dates.entryIntoForce ?? "").localeCompare(a.dates.entryIntoForce ?? ""),
  );
  const [act, ...rest] = ranked as [ChSearchItem, ...ChSearchItem[]];
  return { act, others: rest.map((a) => a.id) };
}

export function indexEntryOf(act: ChSearchItem): IndexEntry {
  return {
    id: act.id,
    title: act.title,
    alt: [act.srNumber, act.shortTitle, ...act.aliases].filter(Boolean).join(" "),
    body: act,
  };
}
