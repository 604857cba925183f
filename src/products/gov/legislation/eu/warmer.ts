// Builds our title index "leg-eu" from Cellar SPARQL: every regulation, directive and decision with an English
// title, read whole by keyset pages in CELEX order and checked against Cellar's own count. A read short of it
// (a page cut by a row limit, a loop ended early), much smaller than the index it would replace, or failed (a
// maintenance page) is refused: the index is kept, and the refusal is the warmer's error and the route's last
// fetch error.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { readKeyset } from "../sparql.ts";
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
const MIN_KEPT = 0.5;
/** A bound on pages (1,000 CELEX numbers each): EUR-Lex holds some 200,000 such acts. */
const MAX_PAGES = 400;

export async function buildEuIndex(ctx: HandlerContext): Promise<Record<string, unknown>> {
  return withFetchHealth(
    ctx,
    EU_SKU,
    async () => {
      const client = ctx.upstreams.client(CELLAR_SPEC);
      const read = await readKeyset((query) => sparql(client, query), {
        key: "celex",
        pageKeys: INDEX_PAGE_KEYS,
        pageQuery: indexPageQuery,
        countQuery: INDEX_COUNT_QUERY,
        rowCap: ROW_CAP,
        maxPages: MAX_PAGES,
      });
      const entries = [...read.groups]
        .map(([celex, rows]) => indexEntryOf(celex, rows))
        .filter((e) => e !== undefined);
      const index = GovTitleIndex.of(ctx.store);
      const current = await index.count(EU_INDEX);
      if (entries.length === 0 || entries.length < current * MIN_KEPT) {
        throw new Error(`Cellar gave ${entries.length} acts against ${current} indexed: refused`);
      }
      const indexed = await index.replaceCollection(EU_INDEX, entries);
      return { pages: read.pages, acts: read.groups.size, upstreamCount: read.upstreamCount, indexed };
    },
    { failurePrefix: "Cellar index not rebuilt, the index in place is kept: " },
  );
}

export const euIndexWarmer: Warmer = { name: EU_INDEX_WARMER, everyMs: WEEK_MS, run: buildEuIndex };
