// Registries that run RDAP for a TLD IANA's bootstrap file does not list (supplement.json): consulted only after
// IANA's file, so a TLD IANA lists is always routed by IANA. Each entry names where its base URL is documented.
// Keep the file small and checked: add a TLD only with a source, and drop it once IANA lists the TLD.
import fs from "node:fs";
import path from "node:path";
import { type Bootstrap, registryFor } from "./bootstrap.ts";

interface SupplementEntry {
  tld: string;
  baseUrl: string;
  operator: string;
  /** Where the base URL is documented: the registry's own page where one exists, else the public list. */
  source: string;
  sourceKind: string;
  alsoListedBy: string[];
  /** When the source last confirmed the entry (YYYY-MM-DD). */
  checkedOn: string;
}

interface Supplement {
  updated: string;
  entries: SupplementEntry[];
}

const SUPPLEMENT_FILE = path.join(import.meta.dirname, "supplement.json");

export function parseSupplement(text: string): Supplement {
  const doc = JSON.parse(text) as { updated?: unknown; entries?: unknown };
  if (typeof doc.updated !== "string" || !Array.isArray(doc.entries))
    throw new Error("supplement.json: needs `updated` and `entries`");
  const entries = doc.entries.map((raw, i) => {
    const e = raw as Partial<SupplementEntry>;
    const where = `supplement.json entries[${i}]`;
    if (typeof e.tld !== "string" || !/^[a-z0-9-]+$/.test(e.tld)) throw new Error(`${where}: bad tld`);
    if (typeof e.baseUrl !== "string" || !/^https:\/\/.+\/$/.test(e.baseUrl))
      throw new Error(`${where}: baseUrl must be https and end in /`);
    if (typeof e.source !== "string" || !/^https:\/\//.test(e.source))
      throw new Error(`${where}: every entry needs the https URL of its source`);
    if (typeof e.checkedOn !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(e.checkedOn))
      throw new Error(`${where}: checkedOn must be YYYY-MM-DD`);
    return {
      tld: e.tld,
      baseUrl: e.baseUrl,
      operator: String(e.operator ?? ""),
      source: e.source,
      sourceKind: String(e.sourceKind ?? ""),
      alsoListedBy: Array.isArray(e.alsoListedBy) ? e.alsoListedBy.map(String) : [],
      checkedOn: e.checkedOn,
    };
  });
  return { updated: doc.updated, entries };
}

export const RDAP_SUPPLEMENT: Supplement = parseSupplement(fs.readFileSync(SUPPLEMENT_FILE, "utf8"));

export interface Route {
  /** The bootstrap or supplement entry that matched (usually the TLD). */
  suffix: string;
  baseUrl: string;
  routedBy: "iana" | "supplement";
  /** The supplement entry, when it routed the query. */
  entry: SupplementEntry | null;
}

/** IANA's file first (longest listed suffix); the supplement only when IANA lists no suffix of the domain. */
export function routeFor(
  bootstrap: Bootstrap,
  labels: string[],
  supplement: Supplement = RDAP_SUPPLEMENT,
): Route | undefined {
  const iana = registryFor(bootstrap, labels);
  if (iana) return { ...iana, routedBy: "iana", entry: null };
  const tld = labels.at(-1);
  const entry = supplement.entries.find((e) => e.tld === tld);
  return entry ? { suffix: entry.tld, baseUrl: entry.baseUrl, routedBy: "supplement", entry } : undefined;
}
