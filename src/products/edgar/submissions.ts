// SEC submissions (data.sec.gov/submissions/CIK##########.json and its extra `files` pages) → the company's
// identity and its filings as rows. Filings arrive as parallel arrays, zipped here by column name.

export const FILINGS_COVERED = 1000;

interface Address {
  street1: string | null;
  street2: string | null;
  city: string | null;
  stateOrCountry: string | null;
  zipCode: string | null;
  stateOrCountryDescription: string | null;
  isForeignLocation: boolean | null;
  foreignStateTerritory: string | null;
  country: string | null;
  countryCode: string | null;
}

export interface CompanyIdentity {
  cik: string;
  name: string;
  tickers: string[];
  exchanges: string[];
  sic: string | null;
  sicDescription: string | null;
  fiscalYearEnd: string | null;
  stateOfIncorporation: string | null;
  phone: string | null;
  website: string | null;
  investorWebsite: string | null;
  /** Filer categories, e.g. ["Non-accelerated filer", "Smaller reporting company"]; empty when SEC gives none. */
  category: string[];
  addresses: { mailing: Address; business: Address };
}

export interface FilingRow {
  accession: string;
  form: string;
  filingDate: string;
  reportDate: string | null;
  acceptanceDateTime: string | null;
  act: string | null;
  fileNumber: string | null;
  filmNumber: string | null;
  /** 8-K item codes, e.g. ["2.02", "9.01"]. */
  items: string[];
  size: number;
  isXBRL: boolean;
  isInlineXBRL: boolean;
  primaryDocument: string | null;
  primaryDocDescription: string | null;
  /** The extra submissions file the row came from; null for `filings.recent`. */
  page: string | null;
}

interface SubmissionsPage {
  name: string;
  filingCount: number;
  filingFrom: string;
  filingTo: string;
}

function text(value: unknown): string | null {
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

function flag(value: unknown): boolean | null {
  if (value === true || value === 1 || value === "1" || value === "true") return true;
  if (value === false || value === 0 || value === "0" || value === "false") return false;
  return null;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(text).filter((v): v is string => v !== null) : [];
}

/**
 * SEC's `category` joins a filer's categories with HTML line breaks ("Non-accelerated filer<br>Smaller
 * reporting company", sometimes "<br>Emerging growth company" with nothing before it): one string each.
 * Takes what an older cached profile holds (one string, or already a list) too.
 */
export function filerCategories(raw: unknown): string[] {
  const parts = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/<br\s*\/?>/i) : [];
  return parts
    .map((part) =>
      typeof part === "string"
        ? part
            .replace(/<[^>]*>/g, " ")
            .replace(/&amp;/g, "&")
            .replace(/\s+/g, " ")
            .trim()
        : "",
    )
    .filter((part) => part !== "");
}

function normaliseAddress(raw: unknown): Address {
  const a = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  return {
    street1: text(a.street1),
    street2: text(a.street2),
    city: text(a.city),
    stateOrCountry: text(a.stateOrCountry),
    zipCode: text(a.zipCode),
    stateOrCountryDescription: text(a.stateOrCountryDescription),
    isForeignLocation: flag(a.isForeignLocation),
    foreignStateTerritory: text(a.foreignStateTerritory),
    country: text(a.country),
    countryCode: text(a.countryCode),
  };
}

export function normaliseIdentity(raw: unknown): CompanyIdentity {
  if (!raw || typeof raw !== "object") throw new Error("the submissions document is not a JSON object");
  const s = raw as Record<string, unknown>;
  const cik = Number(s.cik);
  if (!Number.isInteger(cik) || cik <= 0) throw new Error("the submissions document has no CIK");
  const addresses = (s.addresses ?? {}) as Record<string, unknown>;
  return {
    cik: String(cik).padStart(10, "0"),
    name: text(s.name) ?? "",
    tickers: strings(s.tickers),
    exchanges: strings(s.exchanges),
    sic: text(s.sic),
    sicDescription: text(s.sicDescription),
    fiscalYearEnd: text(s.fiscalYearEnd),
    stateOfIncorporation: text(s.stateOfIncorporation),
    phone: text(s.phone),
    website: text(s.website),
    investorWebsite: text(s.investorWebsite),
    category: filerCategories(s.category),
    addresses: {
      mailing: normaliseAddress(addresses.mailing),
      business: normaliseAddress(addresses.business),
    },
  };
}

/**
 * Zips one block of parallel arrays (`filings.recent`, or the root of an extra file) into rows. Columns are
 * looked up by name, so new or missing columns do no harm.
 */
export function filingRows(block: unknown, page: string | null): FilingRow[] {
  if (!block || typeof block !== "object") return [];
  const columns = block as Record<string, unknown>;
  const column = (name: string): unknown[] =>
    Array.isArray(columns[name]) ? (columns[name] as unknown[]) : [];
  const accessions = column("accessionNumber");
  const [
    filingDate,
    reportDate,
    acceptance,
    act,
    form,
    fileNumber,
    filmNumber,
    items,
    size,
    isXBRL,
    isInline,
  ] = [
    "filingDate",
    "reportDate",
    "acceptanceDateTime",
    "act",
    "form",
    "fileNumber",
    "filmNumber",
    "items",
    "size",
    "isXBRL",
    "isInlineXBRL",
  ].map(column) as unknown[][];
  const primaryDocument = column("primaryDocument");
  const primaryDocDescription = column("primaryDocDescription");
  const rows: FilingRow[] = [];
  accessions.forEach((accession, i) => {
    const date = text(filingDate?.[i]);
    if (typeof accession !== "string" || !/^\d{10}-\d{2}-\d{6}$/.test(accession) || !date) return;
    rows.push({
      accession,
      form: text(form?.[i]) ?? "",
      filingDate: date,
      reportDate: text(reportDate?.[i]),
      acceptanceDateTime: text(acceptance?.[i]),
      act: text(act?.[i]),
      fileNumber: text(fileNumber?.[i]),
      filmNumber: text(filmNumber?.[i]),
      items: (text(items?.[i]) ?? "")
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean),
      size: Number.isFinite(Number(size?.[i])) ? Number(size?.[i]) : 0,
      isXBRL: flag(isXBRL?.[i]) ?? false,
      isInlineXBRL: flag(isInline?.[i]) ?? false,
      primaryDocument: text(primaryDocument[i]),
      primaryDocDescription: text(primaryDocDescription[i]),
      page,
    });
  });
  return rows;
}

/** The extra files listed under `filings.files`, newest first. */
export function submissionsPages(raw: unknown): SubmissionsPage[] {
  const files = (raw as { filings?: { files?: unknown } })?.filings?.files;
  if (!Array.isArray(files)) return [];
  return files
    .map((f) => ({
      name: text(f?.name) ?? "",
      filingCount: Number(f?.filingCount) || 0,
      filingFrom: text(f?.filingFrom) ?? "",
      filingTo: text(f?.filingTo) ?? "",
    }))
    .filter((f) => /^CIK\d{10}-submissions-\d{3}\.json$/.test(f.name))
    .sort((a, b) =>
      a.filingTo < b.filingTo ? 1 : a.filingTo > b.filingTo ? -1 : b.name.localeCompare(a.name),
    );
}

/** Newest first by filing date, then acceptance time; one row per accession; at most `limit`. */
export function latestFilings(rows: FilingRow[], limit = FILINGS_COVERED): FilingRow[] {
  const seen = new Set<string>();
  return [...rows]
    .sort((a, b) => {
      if (a.filingDate !== b.filingDate) return a.filingDate < b.filingDate ? 1 : -1;
      const ta = a.acceptanceDateTime ?? "";
      const tb = b.acceptanceDateTime ?? "";
      return ta < tb ? 1 : ta > tb ? -1 : 0;
    })
    .filter((row) => !seen.has(row.accession) && seen.add(row.accession))
    .slice(0, limit);
}
