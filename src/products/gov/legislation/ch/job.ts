// The job that reads one act from Fedlex SPARQL by its ELI or SR number. Only SPARQL decides whether an act
// exists: Fedlex's website answers 200 even for an invented ELI.
import type { HandlerContext } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { type ChAct, chooseAct, isEliId, parseChId } from "./normalise.ts";
import { CH_CACHE } from "./route.ts";
import { actByEliQuery, actBySrQuery, FEDLEX_SPEC, sparql } from "./upstream.ts";
import { CH_SKU } from "./warmer.ts";

export async function fetchChAct(payload: unknown, ctx: HandlerContext): Promise<void> {
  const parsed = parseChId(String((payload as { id?: unknown }).id));
  if ("error" in parsed) throw new Error(`gov.ch.legislation.act: ${parsed.error}`);
  const id = parsed.id;
  await withFetchHealth(ctx, CH_SKU, async () => {
    const query = isEliId(id) ? actByEliQuery(id) : actBySrQuery(id);
    const answer = await sparql(ctx.upstreams.client(FEDLEX_SPEC), query);
    const chosen = chooseAct(answer.bindings);
    if (!chosen) {
      await storeMissing(ctx, CH_CACHE, id);
    } else {
      const act: ChAct = { ...chosen.act, apiUrl: answer.url };
      await storeItem(ctx, CH_CACHE, id, act, answer.recordedSample);
    }
  });
}
