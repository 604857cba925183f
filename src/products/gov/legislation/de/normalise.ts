// GII table-of-contents items → our index entries and answers. The id is GII's path slug (bgb, ao_1977).
import type { IndexEntry } from "../../shared/title-index.ts";
import type { StoredAct } from "../answers.ts";
import { GII_SITE, type TocItem } from "./upstream.ts";

const SLUG = /^[a-z0-9][a-z0-9_.-]{0,79}$/;

export function parseDeId(raw: string): { id: string } | { error: string } {
  const text = raw.trim().toLowerCase();
  if (SLUG.test(text)) return { id: text };
  return { error: "id must be a gesetze-im-internet.de law id (its path), e.g. bgb, estg or ao_1977" };
}

export interface DeExtras {
  normId: string;
  abbreviation: string | null;
  titleDe: string;
}

export type DeAct = StoredAct<DeExtras>;

/** The slug of a TOC link: http://www.gesetze-im-internet.de/bgb/xml.zip → bgb. */
export function slugOf(link: string): string | undefined {
  const match = /gesetze-im-internet\.de\/([^/]+)\/xml\.zip$/i.exec(link.trim());
  const slug = match?.[1]?.toLowerCase();
  return slug && SLUG.test(slug) ? slug : undefined;
}

function actOfTocItem(item: TocItem): DeAct | undefined {
  const slug = slugOf(item.link);
  const title = item.title.replace(/\s+/g, " ").trim();
  if (!slug || !title) return undefined;
  return {
    id: slug,
    title,
    type: null,
    citation: null,
    inForce: true,
    status: "in force (listed in GII's current table of contents)",
    dates: {},
    sourceUrl: `${GII_SITE}/${slug}/`,
    eli: null,
    apiUrl: `${GII_SITE}/${slug}/xml.zip`,
    normId: slug,
    // GII's slug is derived from the official abbreviation but is not it (estg for EStG, ao_1977 for AO):
    // the abbreviation comes from NeuRIS when one law is looked up (job.ts).
    abbreviation: null,
    titleDe: title,
  };
}

/** Searchable besides the title: the slug and its parts ("ao_1977" → "ao_1977 ao 1977"). */
export function altOf(slug: string): string {
  return `${slug} ${slug.replace(/[_.-]+/g, " ")}`;
}

/**
 * Index entries of the TOC's laws; `completed` holds laws already completed from NeuRIS (by GII id), whose
 * abbreviation, ELI and dates are kept when their title is unchanged.
 */
export function indexEntries(
  items: TocItem[],
  completed: ReadonlyMap<string, DeAct> = new Map(),
): IndexEntry[] {
  const seen = new Set<string>();
  const entries: IndexEntry[] = [];
  for (const item of items) {
    const fromToc = actOfTocItem(item);
    if (!fromToc || seen.has(fromToc.id)) continue;
    seen.add(fromToc.id);
    const known = completed.get(fromToc.id);
    const act =
      known && known.title === fromToc.title
        ? { ...fromToc, abbreviation: known.abbreviation, eli: known.eli, dates: known.dates }
        : fromToc;
    entries.push({
      id: act.id,
      title: act.title,
      alt: [altOf(act.id), act.abbreviation].filter(Boolean).join(" "),
      body: act,
    });
  }
  return entries;
}

/** A search item: the act without its API URL. */
export function searchItem(act: DeAct): Omit<DeAct, "apiUrl"> {
  const { apiUrl: _apiUrl, ...item } = act;
  return item;
}
