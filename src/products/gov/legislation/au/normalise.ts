// Federal Register of Legislation Title records into legislation answers (Australian extra:
// `principal`, true for a principal act or instrument, false for an amending one).
import type { IdParse } from "../../shared/query.ts";
import type { ActSummaryBody, LegislationDatesBody, StoredAct } from "../answers.ts";

export interface AuExtras {
  principal: boolean | null;
}
type AuSearchItem = ActSummaryBody & AuExtras;
export type AuAct = StoredAct<AuExtras>;

/** A register id: C2004A00109 (act), F2019L01091 (instrument), C2015C00019 (compilation). */
export function parseAuId(raw: string): IdParse<string> {
  const fromUrl = /legislation\.gov\.au\/(?:Details\/)?([A-Za-z]\d{4}[A-Za-z]{1,2}\d{5})(?:[/?#]|$)/.exec(
    raw,
  );
  const id = (fromUrl?.[1] ?? raw).trim().toUpperCase();
  if (!/^[A-Z]\d{4}[A-Z]{1,2}\d{5}$/.test(id)) {
    return {
      error: "id must be a Federal Register of Legislation title id, e.g. C2004A00109 or F2019L01091",
    };
  }
  return { id };
}

interface StatusEntry {
  status?: string;
  start?: string;
}
interface Title {
  id?: string;
  name?: string;
  collection?: string;
  status?: string;
  isInForce?: boolean;
  isPrincipal?: boolean;
  year?: number | null;
  number?: number | null;
  makingDate?: string | null;
  asMadeRegisteredAt?: string | null;
  optionalSeriesNumber?: string | null;
  statusHistory?: StatusEntry[];
}

const isoDate = (v: unknown) =>
  typeof v === "string" && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : undefined;

const STATUS_TEXT: Record<string, string> = {
  InForce: "in force",
  Repealed: "repealed",
  Ceased: "ceased",
  NeverEffective: "never effective",
};

/** A Title as a search item or act; undefined when it lacks an id or a name. */
function normaliseTitle(title: Title): AuSearchItem | undefined {
  if (typeof title.id !== "string" || typeof title.name !== "string") return undefined;
  const dates: LegislationDatesBody = {};
  const adopted = isoDate(title.makingDate);
  if (adopted) dates.adopted = adopted;
  const registered = isoDate(title.asMadeRegisteredAt);
  if (registered) dates.registered = registered;
  const history = Array.isArray(title.statusHistory) ? title.statusHistory : [];
  const entry = isoDate(history.find((h) => h.status === "InForce")?.start);
  if (entry) dates.entryIntoForce = entry;
  const ended = history.findLast((h) => h.status === "Repealed" || h.status === "Ceased");
  const endDate = isoDate(ended?.start);
  if (endDate && title.status !== "InForce") dates.repealed = endDate;
  const citation =
    title.year && title.number ? `No. ${title.number}, ${title.year}` : (title.optionalSeriesNumber ?? null);
  return {
    id: title.id,
    title: title.name,
    type: title.collection ?? null,
    citation,
    inForce: typeof title.isInForce === "boolean" ? title.isInForce : null,
    status: title.status ? (STATUS_TEXT[title.status] ?? title.status) : null,
    dates,
    sourceUrl: `https://www.legislation.gov.au/${title.id}`,
    eli: null,
    principal: typeof title.isPrincipal === "boolean" ? title.isPrincipal : null,
  };
}

/** One page of a Titles query; its @odata.nextLink is ignored on purpose (it drops the $filter). */
export function normaliseSearch(json: unknown): { totalCount: number | null; items: AuSearchItem[] } {
  const page = json as { value?: unknown; "@odata.count"?: unknown } | null;
  if (!page || !Array.isArray(page.value)) throw new Error("the Titles answer has no value array");
  const items = page.value.map((t) => normaliseTitle(t as Title)).filter((t) => t !== undefined);
  const count = page["@odata.count"];
  return { totalCount: typeof count === "number" ? count : null, items };
}

export function normaliseAct(json: unknown, apiUrl: string): AuAct {
  const act = normaliseTitle(json as Title);
  if (!act) throw new Error("the Title record has no id or name");
  return { ...act, apiUrl };
}

/** The words sent to the register: lower-cased (the cache key folds case), operators' characters dropped. */
export function searchWordsOf(q: string): string[] {
  return q
    .toLowerCase()
    .split(/[^\p{L}\p{N}'’-]+/u)
    .filter((w) => w.length > 0)
    .slice(0, 8);
}
