// USPTO Open Data Portal search answers → the patent records this service caches. Shape (captured answers,
// see upstream.ts): {count, patentFileWrapperDataBag: [{applicationNumberText, applicationMetaData:
// {patentNumber, inventionTitle, grantDate, filingDate, applicationTypeLabelName, applicantBag[].applicantNameText,
// inventorBag[], cpcClassificationBag ["H01M  50/46", …]}, parentContinuityBag[].parentApplicationFilingDate}]}.
// Only fields with data are sent: a pending application has no patentNumber or grantDate, some have no
// filingDate (only effectiveFilingDate). The file wrapper holds no abstract and no claim count.
import { isObject, type JsonObject } from "../../json.ts";

export class PatentShapeError extends Error {}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function date(value: unknown): string | null {
  const t = text(value);
  return t && /^\d{4}-\d{2}-\d{2}$/.test(t) ? t : null;
}

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function unique(values: Array<string | null>): string[] {
  return [...new Set(values.filter((v): v is string => v !== null))];
}

export interface StoredPatent {
  patentNumber: string;
  applicationNumber: string | null;
  title: string | null;
  /** Never given by the portal (see FIELD_NOTES). */
  abstract: string | null;
  type: string | null;
  grantDate: string | null;
  filingDate: string | null;
  earliestApplicationDate: string | null;
  assignees: string[];
  inventorsCount: number | null;
  cpcGroups: string[];
  cpcSubclasses: string[];
  /** Never given by the portal (see FIELD_NOTES). */
  claimsCount: number | null;
}

export interface StoredSearchPage {
  totalHits: number;
  patents: StoredPatent[];
}

/** Why a field of the answer is null or not what its name alone suggests; sent with every answer. */
export const FIELD_NOTES = {
  abstract:
    "Always null: the USPTO Open Data Portal's patent file-wrapper data has no abstracts (they are in the grant's full text, which this route does not fetch).",
  claimsCount: "Always null: the Open Data Portal's patent file-wrapper data gives no number of claims.",
  assignees:
    "The applicants the file wrapper names (applicantBag): since 16 September 2012 the assignee usually files as applicant; assignments recorded later are not followed.",
  earliestApplicationDate:
    "The earliest filing date of the application and of the US applications it claims (continuity data, provisionals included); foreign priority is not counted.",
} as const;

/** "H01M  50/46" (the portal pads the subclass) → "H01M50/46". */
export function cpcGroup(raw: string): string | null {
  const compact = raw.replace(/\s+/g, "").toUpperCase();
  return /^[A-HY]\d{2}[A-Z]\d+\/\d+$/.test(compact) ? compact : null;
}

/** The type names the portal gives (applicationTypeLabelName) for prefixed grant numbers. */
const PREFIX_TYPE: Record<string, string> = { D: "design", PP: "plant", RE: "reissue" };

/**
 * The grant number in this service's form (11646472, D987654). The portal's own form for prefixed grants is
 * not confirmed by a public capture: a bare-digit number on a design, plant or reissue record gets its prefix.
 */
function grantNumber(raw: string | null, type: string | null): string | null {
  if (!raw) return null;
  const compact = raw.toUpperCase().replace(/[\s,]/g, "");
  if (!/^\d+$/.test(compact)) return compact;
  const prefix = Object.entries(PREFIX_TYPE).find(([, name]) => name === type)?.[0];
  return `${prefix ?? ""}${compact.replace(/^0+/, "")}`;
}

function earliest(dates: Array<string | null>): string | null {
  const known = dates.filter((d): d is string => d !== null).sort();
  return known[0] ?? null;
}

function patentOf(wrapper: JsonObject): StoredPatent | undefined {
  const meta = isObject(wrapper.applicationMetaData) ? wrapper.applicationMetaData : {};
  const type = text(meta.applicationTypeLabelName)?.toLowerCase() ?? null;
  const patentNumber = grantNumber(text(meta.patentNumber), type);
  if (!patentNumber) return undefined;
  const cpc = Array.isArray(meta.cpcClassificationBag)
    ? meta.cpcClassificationBag.map((c) => (typeof c === "string" ? cpcGroup(c) : null))
    : [];
  const filingDate = date(meta.filingDate);
  const groups = unique(cpc);
  return {
    patentNumber,
    applicationNumber: text(wrapper.applicationNumberText),
    title: text(meta.inventionTitle),
    abstract: null,
    type,
    grantDate: date(meta.grantDate),
    filingDate,
    earliestApplicationDate: earliest([
      filingDate,
      ...objects(wrapper.parentContinuityBag).map((p) => date(p.parentApplicationFilingDate)),
    ]),
    assignees: unique(objects(meta.applicantBag).map((a) => text(a.applicantNameText))),
    inventorsCount: Array.isArray(meta.inventorBag) ? objects(meta.inventorBag).length : null,
    cpcGroups: groups,
    cpcSubclasses: unique(groups.map((g) => g.slice(0, 4))),
    claimsCount: null,
  };
}

/** `{"count":…,"patentFileWrapperDataBag":[…],"requestIdentifier":…}`; records that are no grant are skipped. */
export function normaliseSearch(body: string): StoredSearchPage {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new PatentShapeError("the Open Data Portal's answer is not JSON");
  }
  if (!isObject(doc)) throw new PatentShapeError("the Open Data Portal's answer is not an object");
  const bag = doc.patentFileWrapperDataBag;
  if (bag !== undefined && !Array.isArray(bag)) {
    throw new PatentShapeError("the Open Data Portal's answer has no patentFileWrapperDataBag list");
  }
  if (bag === undefined && doc.count === undefined) {
    throw new PatentShapeError(
      "the Open Data Portal's answer has neither count nor patentFileWrapperDataBag",
    );
  }
  const patents = objects(bag).flatMap((w) => {
    const stored = patentOf(w);
    return stored ? [stored] : [];
  });
  const count = doc.count;
  return {
    totalHits: typeof count === "number" && Number.isInteger(count) && count >= 0 ? count : patents.length,
    patents,
  };
}
