// Loads our title index "leg-ch" from Fedlex SPARQL: every act of the classified compilation (in force or not)
// with its German, French and Italian titles, SR number and status; refreshed monthly (the SR changes a few
// times a month). The CAs are read whole by keyset pages and checked against Fedlex's own count
// (sparql-title-index.ts says when a rebuild is refused).
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { rebuildSparqlTitleIndex } from "../sparql-title-index.ts";
import { actOf, indexEntryOf } from "./normalise.ts";
import {
  FEDLEX_SPEC,
  INDEX_COUNT_QUERY,
  INDEX_PAGE_KEYS,
  indexPageQuery,
  ROW_CAP,
  sparql,
} from "./upstream.ts";

export const CH_INDEX = "leg-ch";
export const CH_INDEX_WARMER = "gov.ch.legislation.index";
export const CH_SKU = "gov.ch.legislation";
const MONTH_MS = 30 * 24 * 3600_000;
/** A bound on pages (500 CAs each): the classified compilation, repealed acts included, is far smaller. */
const MAX_PAGES = 400;

export function buildChIndex(ctx: HandlerContext): Promise<Record<string, unknown>> {
  return rebuildSparqlTitleIndex(ctx, {
    upstream: "Fedlex",
    spec: FEDLEX_SPEC,
    sku: CH_SKU,
    index: CH_INDEX,
    select: sparql,
    keyset: {
      key: "ca",
      pageKeys: INDEX_PAGE_KEYS,
      pageQuery: indexPageQuery,
      countQuery: INDEX_COUNT_QUERY,
      rowCap: ROW_CAP,
      maxPages: MAX_PAGES,
    },
    entriesOf: (read) =>
      [...read.groups.values()]
        .map(actOf)
        .filter((act) => act !== undefined)
        .map(indexEntryOf),
  });
}

export const chIndexWarmer: Warmer = { name: CH_INDEX_WARMER, everyMs: MONTH_MS, run: buildChIndex };
