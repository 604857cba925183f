// Follows legislation.gov.uk's new-items feed: every new act is queued for fetching, so that it is cached
// before the first buyer asks (and an act already cached is refreshed).
import type { Warmer } from "../../../../catalog/product.ts";
import { newItemIds } from "./normalise.ts";
import { GB_ACT_QUEUE, GB_NEW_ITEMS_WARMER } from "./route.ts";
import { LEGISLATION_GOV_UK_SPEC, newItems } from "./upstream.ts";

export const gbNewItemsWarmer: Warmer = {
  name: GB_NEW_ITEMS_WARMER,
  everyMs: 6 * 3600_000,
  run: async (ctx) => {
    const fetched = await newItems(ctx.upstreams.client(LEGISLATION_GOV_UK_SPEC));
    const ids = newItemIds(fetched.xml);
    let queued = 0;
    for (const id of ids) {
      if (await ctx.store.jobs.enqueue(GB_ACT_QUEUE, id, { id }, { lane: "warm" })) queued++;
    }
    return { entries: ids.length, queued };
  },
};
