// Builds our index "leg-ca" from Justice Laws' Legis.xml (English records with their French titles); a file
// much smaller than the index it would replace is refused. Then makes sure the sample act is cached.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { indexEntries, indexItems, parseLegis } from "./normalise.ts";
import { fetchLegis, JUSTICE_LAWS_SPEC } from "./upstream.ts";

export const CA_INDEX = "leg-ca";
export const CA_INDEX_WARMER = "gov.ca.legislation.index";
export const CA_SKU = "gov.ca.legislation";
export const CA_ACT_QUEUE = "gov.ca.legislation.act";
export const CA_CACHE = "gov-leg-ca";
export const CA_SAMPLE_CODE = "C-46";
const DAY_MS = 24 * 3600_000;
const MIN_KEPT = 0.5;

async function buildCaIndex(ctx: HandlerContext): Promise<Record<string, unknown>> {
  return withFetchHealth(ctx, CA_SKU, async () => {
    const legis = await fetchLegis(ctx.upstreams.client(JUSTICE_LAWS_SPEC));
    const records = parseLegis(legis.xml);
    const entries = indexEntries(indexItems(records));
    const index = GovTitleIndex.of(ctx.store);
    const current = await index.count(CA_INDEX);
    if (entries.length === 0 || entries.length < current * MIN_KEPT) {
      throw new Error(`Legis.xml lists ${entries.length} laws against ${current} indexed: refused`);
    }
    const indexed = await index.replaceCollection(CA_INDEX, entries);
    if (!(await ctx.store.cache.get(CA_CACHE, CA_SAMPLE_CODE))) {
      await ctx.store.jobs.enqueue(CA_ACT_QUEUE, CA_SAMPLE_CODE, { code: CA_SAMPLE_CODE }, { lane: "warm" });
    }
    return { records: records.length, indexed };
  });
}

export const caIndexWarmer: Warmer = { name: CA_INDEX_WARMER, everyMs: DAY_MS, run: buildCaIndex };
