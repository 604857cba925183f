// NVD CVE API 2.0 pages and CISA's known-exploited feed → the records this family stores. Pure.
// Every upstream field is treated as optional: NVD adds metric versions and fields without notice, and many
// recent records carry no metrics at all.
import { isObject, type JsonObject } from "../../json.ts";

export const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
const CWE_ID = /^CWE-\d+$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

type Severity = "CRITICAL" | "HIGH" | "MEDIUM" | "LOW" | "NONE";
const SEVERITIES: readonly string[] = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "NONE"];

/** Metric keys in the order their score is preferred. */
const METRIC_ORDER = [
  ["cvssMetricV40", "4.0"],
  ["cvssMetricV31", "3.1"],
  ["cvssMetricV30", "3.0"],
  ["cvssMetricV2", "2.0"],
] as const;

type CvssVersion = (typeof METRIC_ORDER)[number][1];

interface CvssSummary {
  version: CvssVersion;
  baseScore: number;
  baseSeverity: Severity | null;
  vectorString: string | null;
  /** Who scored it: nvd@nist.gov, a CNA's address or a CISA-ADP id. */
  source: string | null;
  /** Primary (NVD's own) or Secondary (a CNA's or an ADP's). */
  type: string | null;
}

/** NVD's copy of the known-exploited fields (cisaExploitAdd …), present on catalogue entries only. */
interface NvdKevFields {
  dateAdded: string;
  dueDate: string | null;
  requiredAction: string | null;
  vulnerabilityName: string | null;
}

export interface NormalisedCve {
  id: string;
  /** ISO 8601 UTC with Z (NVD sends UTC without a zone). */
  published: string;
  lastModified: string;
  vulnStatus: string;
  /** English description, or the first one. */
  description: string;
  cvss: CvssSummary | null;
  cwes: string[];
  /** Vendor and product of every configuration match marked vulnerable, from its CPE name. */
  affected: Array<{ vendor: string; product: string }>;
  references: Array<{ url: string; tags: string[] }>;
  nvdKev: NvdKevFields | null;
}

interface NvdPage {
  totalResults: number;
  startIndex: number;
  resultsPerPage: number;
  /** When NVD produced the answer (UTC), if it said. */
  timestamp: string | null;
  /** The `cve` objects as NVD sent them, for storage. */
  raw: Array<Record<string, unknown>>;
  cves: NormalisedCve[];
  /** Records left out, with why (a bad record must not stop a sync). */
  skipped: Array<{ index: number; reason: string }>;
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}

/** "2021-12-10T10:15:09.143" (UTC, no zone) → "2021-12-10T10:15:09.143Z"; null when it is not a date-time. */
export function nvdTimestamp(value: unknown): string | null {
  const raw = text(value);
  if (!raw || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(raw)) return null;
  const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/.test(raw) ? raw : `${raw}Z`;
  const time = Date.parse(zoned);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function severity(value: unknown): Severity | null {
  const upper = typeof value === "string" ? value.toUpperCase() : "";
  return SEVERITIES.includes(upper) ? (upper as Severity) : null;
}

function scoreOf(metric: JsonObject, version: CvssVersion): CvssSummary | null {
  const data = isObject(metric.cvssData) ? metric.cvssData : {};
  const baseScore = data.baseScore;
  if (typeof baseScore !== "number" || !Number.isFinite(baseScore) || baseScore < 0 || baseScore > 10)
    return null;
  return {
    version,
    baseScore,
    // In v3.x and v4.0 the severity sits in cvssData; in v2 at the metric level.
    baseSeverity: severity(version === "2.0" ? metric.baseSeverity : data.baseSeverity),
    vectorString: text(data.vectorString),
    source: text(metric.source),
    type: text(metric.type),
  };
}

/** The newest CVSS version scored (4.0, then 3.1, 3.0, 2.0); within it NVD's Primary score before others. */
export function preferredCvss(metrics: unknown): CvssSummary | null {
  if (!isObject(metrics)) return null;
  for (const [key, version] of METRIC_ORDER) {
    const scored = array(metrics[key])
      .filter(isObject)
      .map((metric) => scoreOf(metric, version))
      .filter((s): s is CvssSummary => s !== null);
    const chosen = scored.find((s) => s.type === "Primary") ?? scored[0];
    if (chosen) return chosen;
  }
  return null;
}

function description(cve: JsonObject): string {
  const entries = array(cve.descriptions).filter(isObject);
  const english = entries.find((d) => d.lang === "en" && text(d.value));
  return text((english ?? entries.find((d) => text(d.value)))?.value) ?? "";
}

function cwes(cve: JsonObject): string[] {
  const found = new Set<string>();
  for (const weakness of array(cve.weaknesses).filter(isObject)) {
    for (const entry of array(weakness.description).filter(isObject)) {
      const value = text(entry.value);
      if (value && CWE_ID.test(value)) found.add(value);
    }
  }
  return [...found];
}

/** "cpe:2.3:a:apache:http_server:2.4.1:…" → { vendor: "apache", product: "http_server" } (colons may be escaped). */
export function cpeVendorProduct(criteria: string): { vendor: string; product: string } | null {
  const parts = criteria.split(/(?<!\\):/);
  if (parts[0] !== "cpe" || parts[1] !== "2.3") return null;
  const unescaped = (value: string | undefined) => (value ?? "").replace(/\\(.)/g, "$1");
  const vendor = unescaped(parts[3]);
  const product = unescaped(parts[4]);
  if (!vendor || !product || vendor === "*" || product === "*") return null;
  return { vendor, product };
}

function affected(cve: JsonObject): Array<{ vendor: string; product: string }> {
  const seen = new Map<string, { vendor: string; product: string }>();
  for (const configuration of array(cve.configurations).filter(isObject)) {
    for (const node of array(configuration.nodes).filter(isObject)) {
      for (const match of array(node.cpeMatch).filter(isObject)) {
        const criteria = text(match.criteria);
        const pair = match.vulnerable === true && criteria ? cpeVendorProduct(criteria) : null;
        if (pair) seen.set(`${pair.vendor}:${pair.product}`, pair);
      }
    }
  }
  return [...seen.values()];
}

function references(cve: JsonObject): Array<{ url: string; tags: string[] }> {
  return array(cve.references)
    .filter(isObject)
    .flatMap((ref) => {
      const url = text(ref.url);
      if (!url) return [];
      return [{ url, tags: array(ref.tags).filter((t): t is string => typeof t === "string") }];
    });
}

function nvdKev(cve: JsonObject): NvdKevFields | null {
  const dateAdded = text(cve.cisaExploitAdd);
  if (!dateAdded || !DAY.test(dateAdded)) return null;
  const dueDate = text(cve.cisaActionDue);
  return {
    dateAdded,
    dueDate: dueDate && DAY.test(dueDate) ? dueDate : null,
    requiredAction: text(cve.cisaRequiredAction),
    vulnerabilityName: text(cve.cisaVulnerabilityName),
  };
}

/** One `cve` object → a record, or the reason it cannot be one. */
export function normaliseCve(cve: unknown): NormalisedCve | { error: string } {
  if (!isObject(cve)) return { error: "the cve entry is not an object" };
  const id = text(cve.id);
  if (!id || !CVE_ID.test(id)) return { error: `id ${JSON.stringify(cve.id)} is not a CVE id` };
  const published = nvdTimestamp(cve.published);
  const lastModified = nvdTimestamp(cve.lastModified);
  if (!published || !lastModified) return { error: `${id} lacks a valid published or lastModified time` };
  return {
    id,
    published,
    lastModified,
    vulnStatus: text(cve.vulnStatus) ?? "Unknown",
    description: description(cve),
    cvss: preferredCvss(cve.metrics),
    cwes: cwes(cve),
    affected: affected(cve),
    references: references(cve),
    nvdKev: nvdKev(cve),
  };
}

/** An NVD CVE API 2.0 answer → its paging figures and records. Throws when it is not such an answer. */
export function normaliseCvePage(json: unknown): NvdPage {
  if (!isObject(json)) throw new Error("NVD answer is not a JSON object");
  const totalResults = count(json.totalResults);
  const startIndex = count(json.startIndex);
  const resultsPerPage = count(json.resultsPerPage);
  if (totalResults === null || startIndex === null || resultsPerPage === null) {
    throw new Error("NVD answer lacks totalResults, startIndex or resultsPerPage");
  }
  if (!Array.isArray(json.vulnerabilities)) throw new Error("NVD answer lacks its vulnerabilities array");
  const page: NvdPage = {
    totalResults,
    startIndex,
    resultsPerPage,
    timestamp: nvdTimestamp(json.timestamp),
    raw: [],
    cves: [],
    skipped: [],
  };
  json.vulnerabilities.forEach((entry, index) => {
    const raw = isObject(entry) ? entry.cve : undefined;
    const cve = normaliseCve(raw);
    if ("error" in cve) page.skipped.push({ index, reason: cve.error });
    else {
      page.cves.push(cve);
      page.raw.push(raw as JsonObject);
    }
  });
  return page;
}

/** The words keyword search matches a record on: its id, description, CWEs and affected vendors and products. */
export function searchTextOf(cve: NormalisedCve): string {
  return [cve.id, cve.description, ...cve.cwes, ...cve.affected.map((a) => `${a.vendor} ${a.product}`)].join(
    " ",
  );
}

export interface KevEntry {
  cveId: string;
  vendorProject: string | null;
  product: string | null;
  vulnerabilityName: string | null;
  dateAdded: string;
  shortDescription: string | null;
  requiredAction: string | null;
  dueDate: string | null;
  knownRansomwareCampaignUse: string | null;
  notes: string | null;
  cwes: string[];
}

interface KevCatalogue {
  catalogVersion: string | null;
  dateReleased: string | null;
  entries: KevEntry[];
  skipped: number;
}

/** CISA's known_exploited_vulnerabilities.json → its entries. Throws on anything but a non-empty catalogue. */
export function normaliseKevFeed(json: unknown): KevCatalogue {
  if (!isObject(json) || !Array.isArray(json.vulnerabilities)) {
    throw new Error("CISA KEV answer lacks its vulnerabilities array");
  }
  const entries = new Map<string, KevEntry>();
  let skipped = 0;
  for (const item of json.vulnerabilities) {
    const cveId = isObject(item) ? text(item.cveID)?.toUpperCase() : undefined;
    const dateAdded = isObject(item) ? text(item.dateAdded) : null;
    if (!isObject(item) || !cveId || !CVE_ID.test(cveId) || !dateAdded || !DAY.test(dateAdded)) {
      skipped++;
      continue;
    }
    const dueDate = text(item.dueDate);
    entries.set(cveId, {
      cveId,
      vendorProject: text(item.vendorProject),
      product: text(item.product),
      vulnerabilityName: text(item.vulnerabilityName),
      dateAdded,
      shortDescription: text(item.shortDescription),
      requiredAction: text(item.requiredAction),
      dueDate: dueDate && DAY.test(dueDate) ? dueDate : null,
      knownRansomwareCampaignUse: text(item.knownRansomwareCampaignUse),
      notes: text(item.notes),
      cwes: array(item.cwes).filter((c): c is string => typeof c === "string" && CWE_ID.test(c)),
    });
  }
  // The catalogue only grows; an empty one is a broken answer, and storing it would wipe every join.
  if (entries.size === 0) throw new Error("CISA KEV answer has no usable entries");
  return {
    catalogVersion: text(json.catalogVersion),
    dateReleased: text(json.dateReleased),
    entries: [...entries.values()],
    skipped,
  };
}
