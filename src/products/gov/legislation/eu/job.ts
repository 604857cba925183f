// The job that reads one act from Cellar SPARQL by its CELEX number.
import type { HandlerContext } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { normaliseAct, parseCelex } from "./normalise.ts";
import { EU_CACHE } from "./route.ts";
import { actQuery, CELLAR_SPEC, sparql } from "./upstream.ts";
import { EU_SKU } from "./warmer.ts";

export async function fetchEuAct(payload: unknown, ctx: HandlerContext): Promise<void> {
  const parsed = parseCelex(String((payload as { id?: unknown }).id));
  if ("error" in parsed) throw new Error(`gov.eu.legislation.act: ${parsed.error}`);
  await withFetchHealth(ctx, EU_SKU, async () => {
    const answer = await sparql(ctx.upstreams.client(CELLAR_SPEC), actQuery(parsed.id));
    const act = normaliseAct(parsed.id, answer.bindings, answer.url);
    if (act) await storeItem(ctx, EU_CACHE, parsed.id, act, answer.recordedSample);
    else await storeMissing(ctx, EU_CACHE, parsed.id);
  });
}
