// Loads our title index "leg-ch" from Fedlex SPARQL: every act of the classified compilation (in force or not)
// with its German, French and Italian titles, SR number and status; refreshed monthly (the SR changes a few
// times a month). The CAs are read whole by keyset pages and checked against Fedlex's own count; a read short
// of it, or much smaller than the index it would replace, is refused: the index is kept, and the refusal is the
// warmer's error (its status) and the route's last fetch error.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { readKeyset } from "../sparql.ts";
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
const MIN_KEPT = 0.5;
/** A bound on pages (500 CAs each): the classified compilation, repealed acts included, is far smaller. */
const MAX_PAGES = 400;

export async function buildChIndex(ctx: HandlerContext): Promise<Record<string, unknown>> {
  return withFetchHealth(
    ctx,
    CH_SKU,
    async () => {
      const client = ctx.upstreams.client(FEDLEX_SPEC);
      const read = await readKeyset((query) => sparql(client, query), {
        key: "ca",
        pageKeys: INDEX_PAGE_KEYS,
        pageQuery: indexPageQuery,
        countQuery: INDEX_COUNT_QUERY,
        rowCap: ROW_CAP,
        maxPages: MAX_PAGES,
      });
      const entries = [...read.groups.values()]
        .map(actOf)
        .filter((act) => act !== undefined)
        .map(indexEntryOf);
      const index = GovTitleIndex.of(ctx.store);
      const current = await index.count(CH_INDEX);
      if (entries.length === 0 || entries.length < current * MIN_KEPT) {
        throw new Error(`Fedlex gave ${entries.length} acts against ${current} indexed: refused`);
      }
      const indexed = await index.replaceCollection(CH_INDEX, entries);
      return { pages: read.pages, acts: read.groups.size, upstreamCount: read.upstreamCount, indexed };
    },
    { failurePrefix: "Fedlex index not rebuilt, the index in place is kept: " },
  );
}

export const chIndexWarmer: Warmer = { name: CH_INDEX_WARMER, everyMs: MONTH_MS, run: buildChIndex };
