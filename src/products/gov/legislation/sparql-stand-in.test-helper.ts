// For tests: a SPARQL endpoint over rows held in memory that answers the keyset queries of ../sparql.ts
// (readKeyset) the way Fedlex and Cellar do: the sub-select's `FILTER(STR(?key) > "…")` and `LIMIT n` pick
// the page's keys, every row of those keys comes back, repeated once per named graph it is stored in unless the
// query says SELECT DISTINCT, and `COUNT(DISTINCT ?key)` counts the keys. `cut` drops the rows of a page after that many keys, as an
// endpoint that stops short without an error would.
import type { SparqlBinding } from "./sparql.ts";

export interface StandInOptions {
  /** Named graphs each row is stored in: the answer repeats it that often. */
  graphs?: number;
  /** Keys answered per page at most (the rest of the page silently missing). */
  cut?: number;
}

export function sparqlStandIn(rows: SparqlBinding[], key: string, options: StandInOptions = {}) {
  const keys = [...new Set(rows.map((row) => row[key]?.value ?? ""))].sort();
  const json = (body: unknown) => ({
    status: 200,
    headers: { "content-type": "application/sparql-results+json" },
    body: JSON.stringify(body),
  });
  return (url: URL) => {
    const query = url.searchParams.get("query") ?? "";
    if (query.includes(`COUNT(DISTINCT ?${key})`)) {
      return json({
        head: { vars: ["n"] },
        results: { bindings: [{ n: { type: "literal", value: String(keys.length) } }] },
      });
    }
    const after = new RegExp(`FILTER\\(STR\\(\\?${key}\\) > "([^"]*)"\\)`).exec(query)?.[1] ?? "";
    const limit = Number(/LIMIT (\d+)/.exec(query)?.[1] ?? keys.length);
    const page = new Set(keys.filter((k) => k > after).slice(0, Math.min(limit, options.cut ?? limit)));
    const answered = rows
      .filter((row) => page.has(row[key]?.value ?? ""))
      .flatMap((row) =>
        Array.from({ length: query.includes("SELECT DISTINCT") ? 1 : (options.graphs ?? 1) }, () => row),
      );
    return json({ head: { vars: Object.keys(rows[0] ?? {}) }, results: { bindings: answered } });
  };
}
