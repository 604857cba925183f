// The company profile served by /v1/edgar/company, assembled at warm time from the submissions and the
// derived financials.
import type { FinancialHighlight } from "./derive-financials.ts";
import { type FilingUrls, filingUrls } from "./identifiers.ts";
import type { CompanyIdentity, FilingRow } from "./submissions.ts";

const PROFILE_FILINGS = 100;

interface FilingSummary extends FilingUrls {
  accession: string;
  form: string;
  filed: string;
  reportDate: string | null;
  primaryDocument: string | null;
  description: string | null;
  size: number;
}

interface KeyFiling extends FilingSummary {
  category: string;
}

export interface CompanyProfile extends CompanyIdentity {
  filingCountsByForm: Record<string, number>;
  filings: FilingSummary[];
  keyFilings: KeyFiling[];
  financialHighlights: FinancialHighlight[];
  factsError: string | null;
  sources: { submissions: string; companyfacts: string };
}

/** Categories of key filings and their forms, preferred form first; amendments count when no original exists. */
const KEY_FILING_CATEGORIES: Array<{ category: string; forms: string[] }> = [
  { category: "annualReport", forms: ["10-K", "20-F", "40-F", "10-KT"] },
  { category: "quarterlyReport", forms: ["10-Q"] },
  { category: "currentReport", forms: ["8-K", "6-K"] },
  { category: "proxyStatement", forms: ["DEF 14A", "DEFA14A", "DEFM14A", "PRE 14A"] },
  { category: "insiderOwnership", forms: ["4", "3", "5"] },
  { category: "beneficialOwnership", forms: ["SCHEDULE 13G", "SCHEDULE 13D", "SC 13G", "SC 13D"] },
  { category: "registrationStatement", forms: ["S-1", "S-3", "S-4", "S-8", "F-1", "F-3", "F-4", "S-3ASR"] },
  { category: "annualReportToShareholders", forms: ["ARS"] },
  { category: "employeeBenefitPlanReport", forms: ["11-K"] },
];

function summariseFiling(cik: string, row: FilingRow): FilingSummary {
  return {
    accession: row.accession,
    form: row.form,
    filed: row.filingDate,
    reportDate: row.reportDate,
    primaryDocument: row.primaryDocument,
    description: row.primaryDocDescription,
    size: row.size,
    ...filingUrls(cik, row.accession, row.primaryDocument, row),
  };
}

/** The latest filing of each category (rows newest first); an amendment stands in only when no original exists. */
export function keyFilings(cik: string, rows: FilingRow[]): KeyFiling[] {
  const key: KeyFiling[] = [];
  for (const { category, forms } of KEY_FILING_CATEGORIES) {
    const original = rows.find((row) => forms.includes(row.form));
    const amended = original ?? rows.find((row) => forms.some((form) => row.form === `${form}/A`));
    if (amended) key.push({ category, ...summariseFiling(cik, amended) });
  }
  return key;
}

function countByForm(rows: FilingRow[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.form] = (counts[row.form] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a, ca], [b, cb]) => cb - ca || a.localeCompare(b)));
}

export function buildProfile(
  identity: CompanyIdentity,
  rows: FilingRow[],
  highlights: FinancialHighlight[],
  factsError: string | null,
  sources: CompanyProfile["sources"],
): CompanyProfile {
  return {
    ...identity,
    filingCountsByForm: countByForm(rows),
    filings: rows.slice(0, PROFILE_FILINGS).map((row) => summariseFiling(identity.cik, row)),
    keyFilings: keyFilings(identity.cik, rows),
    financialHighlights: highlights,
    factsError,
    sources,
  };
}
