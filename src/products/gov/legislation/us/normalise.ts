// eCFR answers → our legislation answers. One "act" here is one CFR section: id `title/part/section`.
import type { LegislationDatesBody, StoredAct } from "../answers.ts";

interface UsSectionId {
  id: string;
  title: string;
  part: string;
  section: string;
}

const SLASHED = /^(\d{1,2})\/(\d{1,5}[a-z]?)\/(\d{1,5}[a-z]?\.[0-9a-z-]{1,12})$/i;
const CITED = /^(\d{1,2})\s*c\.?\s*f\.?\s*r\.?\s*(?:§+\s*)?(\d{1,5}[a-z]?)\.([0-9a-z-]{1,12})$/i;

/** `21/11/11.1` (or the citation `21 CFR 11.1`) → its parts; the section must belong to the part. */
export function parseUsId(raw: string): { id: string } | { error: string } {
  const text = raw.trim();
  const slashed = SLASHED.exec(text);
  const cited = slashed ? undefined : CITED.exec(text);
  const parts = slashed
    ? { title: slashed[1] as string, part: slashed[2] as string, section: slashed[3] as string }
    : cited
      ? { title: cited[1] as string, part: cited[2] as string, section: `${cited[2]}.${cited[3]}` }
      : undefined;
  const title = Number(parts?.title);
  if (
    !parts ||
    title < 1 ||
    title > 50 ||
    !parts.section.toLowerCase().startsWith(`${parts.part.toLowerCase()}.`)
  ) {
    return {
      error: "id must be one CFR section as title/part/section, e.g. 21/11/11.1 (or 21 CFR 11.1); title 1–50",
    };
  }
  return { id: `${Number(parts.title)}/${parts.part}/${parts.section}` };
}

export function splitUsId(id: string): UsSectionId {
  const [title, part, section] = id.split("/") as [string, string, string];
  return { id, title, part, section };
}

export const citationOf = (s: Pick<UsSectionId, "title" | "section">) => `${s.title} CFR ${s.section}`;
const sectionUrl = (s: Pick<UsSectionId, "title" | "part" | "section">) =>
  `https://www.ecfr.gov/current/title-${s.title}/part-${s.part}/section-${s.section}`;

export interface UsExtras {
  titleName: string | null;
  partName: string | null;
  agency: string | null;
}

export type UsAct = StoredAct<UsExtras>;

// --- search -------------------------------------------------------------------------------------------

interface Levels {
  title?: string | null;
  part?: string | null;
  section?: string | null;
  [level: string]: string | null | undefined;
}

interface SearchHit {
  starts_on?: string | null;
  ends_on?: string | null;
  type?: string;
  hierarchy?: Levels;
  headings?: Levels;
  reserved?: boolean;
  removed?: boolean;
  full_text_excerpt?: string | null;
}

export interface EcfrSearchResponse {
  results?: SearchHit[];
  meta?: { total_count?: number };
}

interface UsSearchItem {
  id: string;
  title: string;
  type: string | null;
  citation: string | null;
  inForce: boolean | null;
  status: string | null;
  dates: LegislationDatesBody;
  sourceUrl: string;
  eli: null;
  titleName: string | null;
  partName: string | null;
  excerpt: string | null;
}

/** Search excerpts and headings carry <strong> highlights: plain text for the buyer. */
function plainText(html: string | null | undefined): string | null {
  if (!html) return null;
  const text = html
    .replace(/<[^>]*>/g, "")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 0 ? text : null;
}

const isoDay = (value: string | null | undefined) =>
  value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;

function statusOf(removed: boolean, reserved: boolean, ended: boolean): { inForce: boolean; status: string } {
  if (removed) return { inForce: false, status: "removed" };
  if (reserved) return { inForce: false, status: "reserved" };
  if (ended) return { inForce: false, status: "superseded version" };
  return { inForce: true, status: "current" };
}

/** Section hits only (appendices and whole parts are left out: their ids are not title/part/section). */
export function normaliseSearch(response: EcfrSearchResponse): {
  totalCount: number | null;
  items: UsSearchItem[];
} {
  const items: UsSearchItem[] = [];
  for (const hit of response.results ?? []) {
    const title = hit.hierarchy?.title;
    const part = hit.hierarchy?.part;
    const section = hit.hierarchy?.section;
    if (!title || !part || !section) continue;
    const ref = { title, part, section };
    const state = statusOf(hit.removed === true, hit.reserved === true, Boolean(hit.ends_on));
    const dates: LegislationDatesBody = {};
    const from = isoDay(hit.starts_on);
    const to = isoDay(hit.ends_on);
    if (from) dates.validFrom = from;
    if (to) dates.endOfValidity = to;
    items.push({
      id: `${title}/${part}/${section}`,
      title: plainText(hit.headings?.section) ?? `§ ${section}`,
      type: "section",
      citation: citationOf(ref),
      ...state,
      dates,
      sourceUrl: sectionUrl(ref),
      eli: null,
      titleName: plainText(hit.headings?.title),
      partName: plainText(hit.headings?.part),
      excerpt: plainText(hit.full_text_excerpt),
    });
  }
  return {
    totalCount: typeof response.meta?.total_count === "number" ? response.meta.total_count : null,
    items,
  };
}

// --- one section --------------------------------------------------------------------------------------

export interface EcfrTitles {
  titles?: Array<{
    number: number;
    name: string;
    up_to_date_as_of?: string | null;
    latest_amended_on?: string | null;
  }>;
}

interface AncestorNode {
  identifier: string;
  label_description?: string | null;
  label?: string | null;
  reserved?: boolean;
  type: string;
}

export interface EcfrAncestry {
  ancestors?: AncestorNode[];
}

export interface EcfrVersions {
  content_versions?: Array<{
    amendment_date?: string;
    date?: string;
    identifier?: string;
    removed?: boolean;
  }>;
}

interface Agency {
  display_name?: string;
  name?: string;
  children?: Agency[];
  cfr_references?: Array<{ title?: number; chapter?: string; part?: string }>;
}

export interface EcfrAgencies {
  agencies?: Agency[];
}

/** The title's currency date, which the versioner needs in its paths; undefined for an unknown title. */
export function titleInfo(titles: EcfrTitles, title: string) {
  const entry = titles.titles?.find((t) => String(t.number) === title);
  if (!entry) return undefined;
  return { name: entry.name, upToDate: isoDay(entry.up_to_date_as_of) };
}

/** The agency whose CFR references name this chapter (or part) of the title; a sub-agency before its parent. */
function agencyFor(agencies: EcfrAgencies, title: string, chapter: string | undefined, part: string) {
  let found: string | null = null;
  const visit = (list: Agency[] | undefined) => {
    for (const agency of list ?? []) {
      visit(agency.children);
      if (found) return;
      const refs = agency.cfr_references ?? [];
      const hit = refs.some(
        (r) =>
          String(r.title) === title && ((chapter && r.chapter === chapter) || (r.part && r.part === part)),
      );
      if (hit) found = agency.display_name ?? agency.name ?? null;
    }
  };
  visit(agencies.agencies);
  return found;
}

export function normaliseSection(
  ref: UsSectionId,
  parts: {
    titles: EcfrTitles;
    ancestry: EcfrAncestry;
    versions: EcfrVersions;
    agencies: EcfrAgencies;
    apiUrl: string;
  },
): UsAct | undefined {
  const nodes = parts.ancestry.ancestors ?? [];
  const node = (type: string) => nodes.find((n) => n.type === type);
  const section = node("section");
  if (!section) return undefined;
  const title = titleInfo(parts.titles, ref.title);
  const versions = (parts.versions.content_versions ?? []).filter(
    (v) => !v.identifier || v.identifier === ref.section,
  );
  const latest = [...versions].sort((a, b) =>
    String(b.amendment_date ?? b.date).localeCompare(String(a.amendment_date ?? a.date)),
  )[0];
  const state = statusOf(latest?.removed === true, section.reserved === true, false);
  const dates: LegislationDatesBody = {};
  const amended = isoDay(latest?.amendment_date ?? latest?.date);
  if (amended) dates.lastAmended = amended;
  if (title?.upToDate) dates.validAt = title.upToDate;
  return {
    id: ref.id,
    title: section.label_description?.trim() || `§ ${ref.section}`,
    type: "section",
    citation: citationOf(ref),
    ...state,
    dates,
    sourceUrl: sectionUrl(ref),
    eli: null,
    apiUrl: parts.apiUrl,
    titleName: title?.name ?? node("title")?.label_description ?? null,
    partName: node("part")?.label_description ?? null,
    agency: agencyFor(parts.agencies, ref.title, node("chapter")?.identifier, ref.part),
  };
}
