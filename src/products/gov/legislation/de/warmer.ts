// Builds our title index "leg-de" from GII's daily table of contents; a TOC much smaller than the index it
// would replace (a truncated download, a maintenance page) is refused, keeping the index as it is.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { type DeAct, indexEntries } from "./normalise.ts";
import { fetchToc, GII_SPEC } from "./upstream.ts";

export const DE_INDEX = "leg-de";
export const DE_INDEX_WARMER = "gov.de.legislation.index";
export const DE_SKU = "gov.de.legislation";
export const DE_CACHE = "gov-leg-de";
const DAY_MS = 24 * 3600_000;
/** The new TOC must keep at least this share of the current index. */
const MIN_KEPT = 0.5;

/** Laws already completed from NeuRIS (cached by the act job), so a rebuild keeps their abbreviations. */
async function completedLaws(ctx: HandlerContext): Promise<Map<string, DeAct>> {
  const completed = new Map<string, DeAct>();
  for (const key of await ctx.store.cache.keys(DE_CACHE)) {
    const doc = await ctx.store.cache.get<DeAct | { missing: true }>(DE_CACHE, key);
    if (doc && !("missing" in doc.body) && doc.body.abbreviation) completed.set(key, doc.body);
  }
  return completed;
}

export async function buildDeIndex(ctx: HandlerContext): Promise<Record<string, unknown>> {
  return withFetchHealth(ctx, DE_SKU, async () => {
    const toc = await fetchToc(ctx.upstreams.client(GII_SPEC));
    const entries = indexEntries(toc.items, await completedLaws(ctx));
    const index = GovTitleIndex.of(ctx.store);
    const current = await index.count(DE_INDEX);
    if (entries.length === 0 || entries.length < current * MIN_KEPT) {
      throw new Error(`gii-toc.xml lists ${entries.length} laws against ${current} indexed: refused`);
    }
    const indexed = await index.replaceCollection(DE_INDEX, entries);
    return { items: toc.items.length, indexed };
  });
}

export const deIndexWarmer: Warmer = { name: DE_INDEX_WARMER, everyMs: DAY_MS, run: buildDeIndex };
