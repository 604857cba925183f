// EDGAR identifiers in the forms buyers type them, and the public SEC URLs built from them.

/** `320193`, `0000320193`, `CIK0000320193` → `0000320193`; anything else → undefined. */
export function normaliseCik(raw: string): string | undefined {
  const match = /^(?:CIK)?0*(\d{1,10})$/i.exec(raw.trim());
  if (!match || Number(match[1]) === 0 || (match[1] as string).length > 10) return undefined;
  return (match[1] as string).padStart(10, "0");
}

/** Tickers as SEC lists them: upper case, share classes with a dash (`brk.b` → `BRK-B`). */
export function normaliseTicker(raw: string): string | undefined {
  const value = raw.trim().toUpperCase().replace(/[./]/g, "-");
  return /^[A-Z0-9][A-Z0-9-]{0,11}$/.test(value) ? value : undefined;
}

/** `0000320193-24-000123` or `000032019324000123` (surrounding spaces allowed) → the dashed form. */
export function normaliseAccession(raw: string): string | undefined {
  const digits = raw.trim().replace(/-/g, "");
  if (!/^\d{18}$/.test(digits)) return undefined;
  if (/^\d{10}-\d{2}-\d{6}$/.test(raw.trim()) || !raw.includes("-"))
    return `${digits.slice(0, 10)}-${digits.slice(10, 12)}-${digits.slice(12)}`;
  return undefined;
}

/** The CIK of whoever submitted the filing: the company itself, or a filing agent. */
export function accessionFilerCik(accession: string): string {
  return accession.slice(0, 10);
}

/** The year the accession number was assigned (its two-digit sequence year). */
export function accessionYear(accession: string): number {
  const yy = Number(accession.slice(11, 13));
  return yy >= 93 ? 1900 + yy : 2000 + yy;
}

const SEC_WWW = "https://www.sec.gov";

export interface FilingUrls {
  indexUrl: string;
  filingUrl: string;
  documentsUrl: string;
  secViewerUrl: string | null;
}

/** Public links to one filing, in the company's own Archives folder. */
export function filingUrls(
  cik: string,
  accession: string,
  primaryDocument: string | null,
  flags: { isXBRL: boolean; isInlineXBRL: boolean },
): FilingUrls {
  const folder = `/Archives/edgar/data/${Number(cik)}/${accession.replace(/-/g, "")}`;
  let secViewerUrl: string | null = null;
  if (flags.isInlineXBRL && primaryDocument) secViewerUrl = `${SEC_WWW}/ix?doc=${folder}/${primaryDocument}`;
  else if (flags.isXBRL)
    secViewerUrl = `${SEC_WWW}/cgi-bin/viewer?action=view&cik=${Number(cik)}&accession_number=${accession}&xbrl_type=v`;
  return {
    indexUrl: `${SEC_WWW}${folder}/${accession}-index.htm`,
    filingUrl: `${SEC_WWW}${folder}/${primaryDocument ?? `${accession}.txt`}`,
    documentsUrl: `${SEC_WWW}${folder}/`,
    secViewerUrl,
  };
}
