// Builds our title index "leg-eu" from Cellar SPARQL: every regulation, directive and decision with an English
// title, page by page in CELEX order. A build much smaller than the index it would replace (a query cut short
// by Virtuoso's time limit, a maintenance page) is refused, keeping the index as it is.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { recordGovFetch } from "../../shared/fetch-health.ts";
import { GovTitleIndex, type IndexEntry } from "../../shared/title-index.ts";
import { indexEntriesOf } from "./normalise.ts";
import { CELLAR_SPEC, INDEX_PAGE_SIZE, indexPageQuery, sparql } from "./upstream.ts";

export const EU_INDEX = "leg-eu";
export const EU_INDEX_WARMER = "gov.eu.legislation.index";
export const EU_SKU = "gov.eu.legislation";
const WEEK_MS = 7 * 24 * 3600_000;
const MIN_KEPT = 0.5;
/** A bound on pages (5,000 rows each): EUR-Lex holds some 200,000 such acts. */
const MAX_PAGES = 100;

export async function buildEuIndex(ctx: HandlerContext): Promise<Record<string, unknown>> {
  try {
    const client = ctx.upstreams.client(CELLAR_SPEC);
    const entries: IndexEntry[] = [];
    let after = "";
    let pages = 0;
    for (; pages < MAX_PAGES; ) {
      const page = await sparql(client, indexPageQuery(after));
      pages++;
      const { entries: found, last } = indexEntriesOf(page.bindings);
      entries.push(...found);
      if (page.bindings.length < INDEX_PAGE_SIZE || !last || last === after) break;
      after = last;
    }
    const index = GovTitleIndex.of(ctx.store);
    const current = await index.count(EU_INDEX);
    if (entries.length === 0 || entries.length < current * MIN_KEPT) {
      throw new Error(`Cellar gave ${entries.length} acts against ${current} indexed: refused`);
    }
    const indexed = await index.replaceCollection(EU_INDEX, entries);
    await recordGovFetch(ctx.store, EU_SKU, { ok: true });
    return { pages, indexed };
  } catch (error) {
    await recordGovFetch(ctx.store, EU_SKU, {
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
}

export const euIndexWarmer: Warmer = { name: EU_INDEX_WARMER, everyMs: WEEK_MS, run: buildEuIndex };
