// Follows RIS's change feed (History, Bundesnormen): every act we hold whose provisions changed in the last
// three days is queued for fetching again, so that a cached act follows its amendments within a day.
import type { Warmer } from "../../../../catalog/product.ts";
import { parseRisPage } from "./normalise.ts";
import { AT_ACT_QUEUE, AT_CACHE, AT_HISTORY_WARMER } from "./route.ts";
import { changedSince, RIS_SPEC } from "./upstream.ts";

const DAY_MS = 24 * 3600_000;
const WINDOW_DAYS = 3;
const MAX_PAGES = 20;

export const atHistoryWarmer: Warmer = {
  name: AT_HISTORY_WARMER,
  everyMs: DAY_MS,
  run: async (ctx) => {
    const client = ctx.upstreams.client(RIS_SPEC);
    const from = new Date(Date.now() - WINDOW_DAYS * DAY_MS).toISOString().slice(0, 10);
    const changed = new Set<string>();
    let read = 0;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { hits, provisions } = parseRisPage((await changedSince(client, from, page)).json);
      for (const provision of provisions) changed.add(provision.gesetzesnummer);
      read += provisions.length;
      if (provisions.length === 0 || read >= hits) break;
    }
    let refreshed = 0;
    for (const id of changed) {
      if (!(await ctx.store.cache.get(AT_CACHE, id))) continue;
      // A job already queued for the act is left as it is: it will read the new version too.
      await ctx.store.jobs.enqueue(AT_ACT_QUEUE, id, { id }, { lane: "warm" });
      refreshed++;
    }
    return { changedProvisions: read, changedActs: changed.size, refreshed };
  },
};
