// PatentsView PatentSearch API v1 answers → the patent records this service caches. Every field is optional:
// nested lists (assignees, inventors, cpc_current, application) may be absent or empty, and an assignee is an
// organisation or a person (assignee_individual_name_first/last).

type Json = Record<string, unknown>;

export class PatentShapeError extends Error {}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function unique(values: Array<string | null>): string[] {
  return [...new Set(values.filter((v): v is string => v !== null))];
}

export interface StoredPatent {
  patentNumber: string;
  title: string | null;
  abstract: string | null;
  type: string | null;
  grantDate: string | null;
  filingDate: string | null;
  earliestApplicationDate: string | null;
  assignees: string[];
  inventorsCount: number | null;
  cpcGroups: string[];
  cpcSubclasses: string[];
  claimsCount: number | null;
}

export interface StoredSearchPage {
  totalHits: number;
  patents: StoredPatent[];
}

function assigneeName(a: Json): string | null {
  const organisation = text(a.assignee_organization);
  if (organisation) return organisation;
  const person = [text(a.assignee_individual_name_first), text(a.assignee_individual_name_last)].filter(
    Boolean,
  );
  return person.length ? person.join(" ") : null;
}

export function patentOf(p: Json): StoredPatent | undefined {
  const patentNumber = text(p.patent_id);
  if (!patentNumber) return undefined;
  const cpc = objects(p.cpc_current);
  const claims = p.patent_num_claims;
  return {
    patentNumber,
    title: text(p.patent_title),
    abstract: text(p.patent_abstract),
    type: text(p.patent_type),
    grantDate: text(p.patent_date),
    filingDate:
      objects(p.application)
        .map((a) => text(a.filing_date))
        .find((d) => d !== null) ?? null,
    earliestApplicationDate: text(p.patent_earliest_application_date),
    assignees: unique(objects(p.assignees).map(assigneeName)),
    inventorsCount: Array.isArray(p.inventors) ? objects(p.inventors).length : null,
    cpcGroups: unique(cpc.map((c) => text(c.cpc_group_id))),
    cpcSubclasses: unique(cpc.map((c) => text(c.cpc_subclass_id))),
    claimsCount: typeof claims === "number" && Number.isInteger(claims) && claims >= 0 ? claims : null,
  };
}

/** `{"error":false,"count":…,"total_hits":…,"patents":[…]}` */
export function normaliseSearch(body: string): StoredSearchPage {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new PatentShapeError("the PatentSearch answer is not JSON");
  }
  if (!isObject(doc) || doc.error === true)
    throw new PatentShapeError("the PatentSearch answer reports an error");
  const patents = doc.patents;
  if (patents !== null && patents !== undefined && !Array.isArray(patents)) {
    throw new PatentShapeError("the PatentSearch answer has no patents list");
  }
  const list = objects(patents).flatMap((p) => {
    const stored = patentOf(p);
    return stored ? [stored] : [];
  });
  const total = doc.total_hits;
  return { totalHits: typeof total === "number" && total >= 0 ? total : list.length, patents: list };
}
