// Loads our title index "leg-ch" from Fedlex SPARQL: every act of the classified compilation (in force or not)
// with its German, French and Italian titles, SR number and status; refreshed monthly (the SR changes a few
// times a month). A load much smaller than the index it would replace is refused, keeping the index.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { recordGovFetch } from "../../shared/fetch-health.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { actOf, groupRows, indexEntryOf } from "./normalise.ts";
import { FEDLEX_SPEC, INDEX_PAGE_SIZE, indexPageQuery, type SparqlBinding, sparql } from "./upstream.ts";

export const CH_INDEX = "leg-ch";
export const CH_INDEX_WARMER = "gov.ch.legislation.index";
export const CH_SKU = "gov.ch.legislation";
const MONTH_MS = 30 * 24 * 3600_000;
const MIN_KEPT = 0.5;
const MAX_PAGES = 50;

export async function buildChIndex(ctx: HandlerContext): Promise<Record<string, unknown>> {
  try {
    const client = ctx.upstreams.client(FEDLEX_SPEC);
    const rows: SparqlBinding[] = [];
    let from = "";
    let pages = 0;
    while (pages < MAX_PAGES) {
      const page = await sparql(client, indexPageQuery(from));
      pages++;
      rows.push(...page.bindings);
      const last = page.bindings.at(-1)?.ca?.value;
      if (page.bindings.length < INDEX_PAGE_SIZE || !last || last === from) break;
      from = last;
    }
    const entries = [...groupRows(rows).values()]
      .map(actOf)
      .filter((act) => act !== undefined)
      .map(indexEntryOf);
    const index = GovTitleIndex.of(ctx.store);
    const current = await index.count(CH_INDEX);
    if (entries.length === 0 || entries.length < current * MIN_KEPT) {
      throw new Error(`Fedlex gave ${entries.length} acts against ${current} indexed: refused`);
    }
    const indexed = await index.replaceCollection(CH_INDEX, entries);
    await recordGovFetch(ctx.store, CH_SKU, { ok: true });
    return { pages, indexed };
  } catch (error) {
    await recordGovFetch(ctx.store, CH_SKU, {
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
}

export const chIndexWarmer: Warmer = { name: CH_INDEX_WARMER, everyMs: MONTH_MS, run: buildChIndex };
