// e-Gov law API v2 → our legislation answers. Ids: the law id (129AC0000000089) or the law number
// (明治二十九年法律第八十九号); answers always carry the law id.
import type { LegislationDatesBody, StoredAct } from "../answers.ts";

const LAW_ID = /^\d{3}[A-Z][A-Z0-9]{11}$/;
const LAW_NUM =
  /^(明治|大正|昭和|平成|令和)[元〇一二三四五六七八九十百]{1,4}年[^\s]{1,24}第[〇一二三四五六七八九十百千]{1,8}号$/u;

/** A law id (full-width letters and digits accepted) or a law number. */
export function parseJpId(raw: string): { id: string } | { error: string } {
  const text = raw.normalize("NFKC").trim();
  if (LAW_ID.test(text.toUpperCase())) return { id: text.toUpperCase() };
  if (LAW_NUM.test(text)) return { id: text };
  return {
    error:
      "id must be an e-Gov law id such as 129AC0000000089, or a law number such as 明治二十九年法律第八十九号",
  };
}

export const isLawId = (id: string) => LAW_ID.test(id);

interface RevisionInfo {
  law_revision_id?: string;
  law_type?: string;
  law_title?: string;
  law_title_kana?: string | null;
  abbrev?: string | null;
  category?: string | null;
  updated?: string | null;
  amendment_promulgate_date?: string | null;
  amendment_enforcement_date?: string | null;
  amendment_enforcement_comment?: string | null;
  amendment_law_id?: string | null;
  amendment_law_title?: string | null;
  amendment_law_num?: string | null;
  repeal_status?: string | null;
  repeal_date?: string | null;
  current_revision_status?: string | null;
}

interface EgovLaw {
  law_info?: { law_id?: string; law_num?: string; law_type?: string; promulgation_date?: string | null };
  revision_info?: RevisionInfo | null;
  current_revision_info?: RevisionInfo | null;
}

export interface EgovLaws {
  total_count?: number;
  count?: number;
  laws?: EgovLaw[];
}

export interface JpExtras {
  titleKana: string | null;
  category: string | null;
  revisionStatus: string | null;
  revisionNote: string | null;
}

export type JpAct = StoredAct<JpExtras>;
type JpSearchItem = Omit<JpAct, "apiUrl" | "revisionNote">;

const REPEAL_STATUS: Record<string, string> = {
  None: "in force",
  Repeal: "repealed",
  Expire: "expired",
  Suspend: "suspended",
  LossOfEffectiveness: "lost effect",
};

const ORIGINAL_ENACTMENT = "000000000000000";
const day = (value: string | null | undefined) =>
  value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;

/** Repealed, expired, suspended or void: false; a law whose only version is not yet enforced: false. */
function inForceOf(revision: RevisionInfo): boolean | null {
  const repeal = revision.repeal_status;
  if (repeal && repeal !== "None") return false;
  if (revision.current_revision_status === "UnEnforced") return false;
  if (repeal === "None") return true;
  return null;
}

/** The amending law of the current version, with e-Gov's enforcement comment when it has one. */
function revisionNoteOf(revision: RevisionInfo): string | null {
  const amended = revision.amendment_law_id && revision.amendment_law_id !== ORIGINAL_ENACTMENT;
  const parts = [
    amended && revision.amendment_law_title
      ? `${revision.amendment_law_title}${revision.amendment_law_num ? `（${revision.amendment_law_num}）` : ""}`
      : null,
    revision.amendment_enforcement_comment ?? null,
  ].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(" ") : null;
}

export function normaliseLaw(law: EgovLaw, apiUrl: string): JpAct | undefined {
  const info = law.law_info;
  const revision = law.current_revision_info ?? law.revision_info;
  if (!info?.law_id || !revision?.law_title) return undefined;
  const dates: LegislationDatesBody = {};
  const put = (key: keyof LegislationDatesBody, value: string | null | undefined) => {
    const iso = day(value);
    if (iso) dates[key] = iso;
  };
  put("published", info.promulgation_date);
  if (revision.amendment_law_id && revision.amendment_law_id !== ORIGINAL_ENACTMENT) {
    put("lastAmended", revision.amendment_promulgate_date);
  }
  put("versionInForceFrom", revision.amendment_enforcement_date);
  put("updated", revision.updated);
  put("repealed", revision.repeal_date);
  return {
    id: info.law_id,
    title: revision.law_title,
    type: info.law_type ?? revision.law_type ?? null,
    citation: info.law_num ?? null,
    inForce: inForceOf(revision),
    status: REPEAL_STATUS[revision.repeal_status ?? ""] ?? revision.repeal_status ?? null,
    dates,
    sourceUrl: `https://laws.e-gov.go.jp/law/${info.law_id}`,
    eli: null,
    apiUrl,
    titleKana: revision.law_title_kana ?? null,
    category: revision.category ?? null,
    revisionStatus: revision.current_revision_status ?? null,
    revisionNote: revisionNoteOf(revision),
  };
}

export function normaliseSearch(
  laws: EgovLaws,
  apiUrl: string,
): { totalCount: number | null; items: JpSearchItem[] } {
  const items = (laws.laws ?? []).flatMap((law) => {
    const act = normaliseLaw(law, apiUrl);
    if (!act) return [];
    const { apiUrl: _url, revisionNote: _note, ...item } = act;
    return [item];
  });
  return { totalCount: typeof laws.total_count === "number" ? laws.total_count : null, items };
}

/** The law the id names among /laws answers (law_id and law_num are partial matches upstream). */
export function pickLaw(laws: EgovLaws, id: string): EgovLaw | undefined {
  return (laws.laws ?? []).find((law) => law.law_info?.law_id === id || law.law_info?.law_num === id);
}
