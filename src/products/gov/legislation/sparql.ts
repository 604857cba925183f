// A SPARQL SELECT over GET (Fedlex for ch, Cellar for eu), answered as SPARQL JSON results. Anything else
// (an HTML maintenance page served with 200, a timeout notice) is an error, so it never reaches a normaliser.
import type { UpstreamClient } from "../../../upstream/client.ts";
import { UpstreamError } from "../../../upstream/client.ts";

export const SPARQL_JSON = "application/sparql-results+json";

export interface SparqlBinding {
  [name: string]: { type: string; value: string; datatype?: string; "xml:lang"?: string } | undefined;
}

export interface SparqlAnswer {
  bindings: SparqlBinding[];
  url: string;
  recordedSample: boolean;
}

/** `params` holds the query (`query`) and whatever else the endpoint wants in the URL. */
export async function sparqlSelect(
  client: UpstreamClient,
  path: string,
  params: { query: string } & Record<string, string>,
): Promise<SparqlAnswer> {
  const response = await client.get({ path, query: params, headers: { accept: SPARQL_JSON } });
  if (response.status >= 400) {
    throw new UpstreamError(client.name, `HTTP ${response.status} from the SPARQL endpoint`, response.status);
  }
  let json: { results?: { bindings?: unknown } };
  try {
    json = JSON.parse(response.body);
  } catch {
    throw new UpstreamError(
      client.name,
      "the SPARQL endpoint answered something else than JSON (maintenance page?)",
    );
  }
  if (!Array.isArray(json.results?.bindings)) {
    throw new UpstreamError(client.name, "the SPARQL answer has no results.bindings");
  }
  return {
    bindings: json.results.bindings as SparqlBinding[],
    url: response.url,
    recordedSample: response.recordedSample,
  };
}

/** A string as a SPARQL literal's content (the keys come from the upstream, not from buyers). */
export const sparqlString = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"');

/**
 * An index read whole by keyset paging (ch, eu). Each page query selects DISTINCT rows of the next `pageKeys`
 * keys after `after` (a sub-select ORDER BY key LIMIT pageKeys, FILTER key > after), every key with all its
 * rows, so a key never spans two pages and no OFFSET meets Virtuoso's 10,000-row sort limit. The same row
 * repeated by several named graphs is kept once.
 */
export interface KeysetRead {
  /** The binding that holds the key (?ca, ?celex). */
  key: string;
  pageKeys: number;
  pageQuery: (after: string) => string;
  /** SELECT (COUNT(DISTINCT ?key) AS ?n): the upstream's own count of the keys the pages read. */
  countQuery: string;
  /** A page this long may have been cut by the endpoint's row cap: refused. */
  rowCap: number;
  maxPages: number;
}

export interface KeysetResult {
  /** Every key's rows, duplicates removed. */
  groups: Map<string, SparqlBinding[]>;
  pages: number;
  /** What the count query said. */
  upstreamCount: number;
}

/** Raised when a read comes back short of the upstream's count: the index it was for is not replaced. */
class ShortIndexRead extends Error {}

export async function readKeyset(
  select: (query: string) => Promise<SparqlAnswer>,
  read: KeysetRead,
): Promise<KeysetResult> {
  const groups = new Map<string, SparqlBinding[]>();
  let after = "";
  let pages = 0;
  for (;;) {
    if (pages >= read.maxPages) {
      throw new ShortIndexRead(`more than ${read.maxPages} pages of ${read.pageKeys} keys: refused`);
    }
    const page = await select(read.pageQuery(after));
    pages++;
    if (page.bindings.length >= read.rowCap) {
      throw new ShortIndexRead(
        `page ${pages} has ${page.bindings.length} rows, the endpoint's cap: it may be cut short: refused`,
      );
    }
    const keys = new Set<string>();
    // A key's rows all come in its page, so its repeats (one per named graph) are met in that page too.
    const rowsSeen = new Set<string>();
    let last = after;
    for (const row of page.bindings) {
      const key = row[read.key]?.value;
      if (!key) continue;
      if (key <= after)
        throw new ShortIndexRead(`the endpoint answered key ${key}, not after ${after}: refused`);
      keys.add(key);
      if (key > last) last = key;
      const rowId = JSON.stringify(row);
      if (rowsSeen.has(rowId)) continue;
      rowsSeen.add(rowId);
      const group = groups.get(key) ?? [];
      group.push(row);
      groups.set(key, group);
    }
    if (keys.size < read.pageKeys) break;
    after = last;
  }
  const counted = await select(read.countQuery);
  const upstreamCount = Number(counted.bindings[0]?.n?.value);
  if (!Number.isInteger(upstreamCount) || upstreamCount < 0) {
    throw new ShortIndexRead("the count query gave no count: refused");
  }
  if (groups.size < upstreamCount) {
    throw new ShortIndexRead(
      `read ${groups.size} of the ${upstreamCount} the upstream counts in ${pages} pages: short, refused`,
    );
  }
  return { groups, pages, upstreamCount };
}
