// SEC's ticker file (company_tickers.json) → a list of listed companies, and the in-memory directory built
// from it: ticker and CIK lookups, and the company search (exact ticker, then name prefix, then all words).

import { releaseMemorySoon } from "../../memory-release.ts";
import { normaliseTicker } from "./identifiers.ts";

interface TickerEntry {
  cik: string;
  ticker: string;
  name: string;
}

/** The cached ticker list, in SEC's order (roughly by market value). */
export interface TickerList {
  source: string;
  entries: TickerEntry[];
}

/** `{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},...}` → entries in index order. */
export function normaliseTickerFile(raw: unknown): TickerEntry[] {
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    throw new Error("the ticker file is not a JSON object");
  const rows = Object.entries(raw as Record<string, unknown>)
    .filter(([key]) => /^\d+$/.test(key))
    .sort(([a], [b]) => Number(a) - Number(b));
  const entries: TickerEntry[] = [];
  for (const [, value] of rows) {
    const row = value as { cik_str?: unknown; ticker?: unknown; title?: unknown };
    const cik = Number(row?.cik_str);
    const ticker = typeof row?.ticker === "string" ? normaliseTicker(row.ticker) : undefined;
    if (!Number.isInteger(cik) || cik <= 0 || !ticker) continue;
    entries.push({
      cik: String(cik).padStart(10, "0"),
      ticker,
      name: typeof row.title === "string" ? row.title : "",
    });
  }
  return entries;
}

/** Lower case, `&` and punctuation to spaces, single spaces. */
export function normaliseName(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

type SearchTier = "ticker" | "cik" | "namePrefix" | "allWords";

interface SearchHit extends TickerEntry {
  matchedBy: SearchTier;
}

/** A Map entry's key, value and chain slots and its share of the hash table. */
const MAP_ENTRY_BYTES = 40;

interface IndexedCompany {
  entry: TickerEntry;
  name: string;
  words: string[];
}

export class TickerDirectory {
  readonly size: number;
  private readonly byTicker = new Map<string, TickerEntry>();
  private readonly byCik = new Map<string, TickerEntry[]>();
  /** One row per company (its first-listed ticker), in the file's order. */
  private readonly companies: IndexedCompany[] = [];

  constructor(entries: TickerEntry[]) {
    this.size = entries.length;
    for (const entry of entries) {
      if (!this.byTicker.has(entry.ticker)) this.byTicker.set(entry.ticker, entry);
      const same = this.byCik.get(entry.cik);
      if (same) same.push(entry);
      else {
        this.byCik.set(entry.cik, [entry]);
        const name = normaliseName(entry.name);
        this.companies.push({ entry, name, words: name.split(" ").filter(Boolean) });
      }
    }
  }

  /** Companies (CIKs) in the directory. */
  get companyCount(): number {
    return this.companies.length;
  }

  /**
   * A rough size in memory, for the status route: the entries' and names' strings (one byte a character plus
   * a header), an object per entry and company, and a slot per map entry. Not an exact heap measurement.
   */
  approximateBytes(): number {
    this.bytes ??= this.measure();
    return this.bytes;
  }

  private bytes: number | undefined;

  private measure(): number {
    const text = (s: string) => 24 + s.length;
    let bytes = 0;
    for (const entries of this.byCik.values()) {
      bytes += MAP_ENTRY_BYTES + 32 + entries.length * 8;
      for (const entry of entries) bytes += 40 + text(entry.cik) + text(entry.ticker) + text(entry.name);
    }
    bytes += this.byTicker.size * MAP_ENTRY_BYTES;
    for (const company of this.companies)
      bytes += 48 + text(company.name) + company.words.reduce((n, w) => n + 8 + text(w), 32);
    return bytes;
  }

  ticker(ticker: string): TickerEntry | undefined {
    return this.byTicker.get(ticker);
  }

  /** Every ticker of one company, first-listed first. */
  tickersOf(cik: string): TickerEntry[] {
    return this.byCik.get(cik) ?? [];
  }

  /**
   * Exact ticker (or CIK) first, then names starting with the query, then names containing every word of the
   * query (each as the start of a word); one hit per company, in SEC's order within each tier.
   */
  search(query: string, limit: number): SearchHit[] {
    const hits: SearchHit[] = [];
    const seen = new Set<string>();
    const add = (entry: TickerEntry, matchedBy: SearchTier) => {
      if (hits.length >= limit || seen.has(entry.cik)) return;
      seen.add(entry.cik);
      hits.push({ ...entry, matchedBy });
    };
    const ticker = normaliseTicker(query);
    const exact = ticker ? this.byTicker.get(ticker) : undefined;
    if (exact) add(exact, "ticker");
    const cikDigits = /^(?:cik)?0*(\d{1,10})$/i.exec(query.trim())?.[1];
    if (cikDigits) {
      const first = this.byCik.get(cikDigits.padStart(10, "0"))?.[0];
      if (first) add(first, "cik");
    }
    const name = normaliseName(query);
    if (name === "") return hits;
    for (const company of this.companies) {
      if (hits.length >= limit) break;
      if (company.name.startsWith(name)) add(company.entry, "namePrefix");
    }
    const words = name.split(" ");
    for (const company of this.companies) {
      if (hits.length >= limit) break;
      if (words.every((word) => company.words.some((w) => w.startsWith(word))))
        add(company.entry, "allWords");
    }
    return hits;
  }
}

const directories = new WeakMap<TickerList, TickerDirectory>();

interface BuiltDirectory {
  directory: TickerDirectory;
  builtAt: string;
  buildMs: number;
}

/** The directory this process built last: what its status route reports. */
let latest: BuiltDirectory | undefined;

/** The directory of a cached ticker list, built once per list read from the store. */
export function directoryFor(list: TickerList): TickerDirectory {
  let directory = directories.get(list);
  if (!directory) {
    const started = performance.now();
    directory = new TickerDirectory(list.entries);
    directories.set(list, directory);
    latest = {
      directory,
      builtAt: new Date().toISOString(),
      buildMs: Math.round(performance.now() - started),
    };
    releaseMemorySoon();
  }
  return directory;
}

export function latestDirectory(): BuiltDirectory | undefined {
  return latest;
}
