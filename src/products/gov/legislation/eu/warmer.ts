// Builds our title index "leg-eu" from Cellar SPARQL: every regulation, directive and decision with an English
// title, read whole by keyset pages in CELEX order and checked against Cellar's own count (sparql-title-index.ts
// says when a rebuild is refused: a page cut by a row limit, a loop ended early, a maintenance page).
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { rebuildSparqlTitleIndex } from "../sparql-title-index.ts";
import { indexEntryOf } from "./normalise.ts";
import {
  CELLAR_SPEC,
  INDEX_COUNT_QUERY,
  INDEX_PAGE_KEYS,
  indexPageQuery,
  ROW_CAP,
  sparql,
} from "./upstream.ts";

export const EU_INDEX = "leg-eu";
export const EU_INDEX_WARMER = "gov.eu.legislation.index";
export const EU_SKU = "gov.eu.legislation";
const WEEK_MS = 7 * 24 * 3600_000;
/** A bound on pages (1,000 CELEX numbers each): EUR-Lex holds some 200,000 such acts. */
const MAX_PAGES = 400;

export function buildEuIndex(ctx: HandlerContext): Promise<Record<string, unknown>> {
  return rebuildSparqlTitleIndex(ctx, {
    upstream: "Cellar",
    spec: CELLAR_SPEC,
    sku: EU_SKU,
    index: EU_INDEX,
    select: sparql,
    keyset: {
      key: "celex",
      pageKeys: INDEX_PAGE_KEYS,
      pageQuery: indexPageQuery,
      countQuery: INDEX_COUNT_QUERY,
      rowCap: ROW_CAP,
      maxPages: MAX_PAGES,
    },
    entriesOf: (read) =>
      [...read.groups].map(([celex, rows]) => indexEntryOf(celex, rows)).filter((e) => e !== undefined),
  });
}

export const euIndexWarmer: Warmer = { name: EU_INDEX_WARMER, everyMs: WEEK_MS, run: buildEuIndex };
