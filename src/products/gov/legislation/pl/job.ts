// The job that fetches one act of the Sejm ELI API by its ELI.
import type { HandlerContext } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { normaliseAct, type PlAct, type SejmAct, splitPlId } from "./normalise.ts";
import { PL_CACHE, PL_SKU } from "./route.ts";
import { fetchAct, SEJM_ELI_SPEC } from "./upstream.ts";

export async function fetchPlAct(payload: unknown, ctx: HandlerContext): Promise<void> {
  const ref = splitPlId(String((payload as { id?: unknown }).id));
  await withFetchHealth(ctx, PL_SKU, async () => {
    const fetched = await fetchAct<SejmAct>(ctx.upstreams.client(SEJM_ELI_SPEC), ref);
    const summary = fetched ? normaliseAct(fetched.json) : undefined;
    if (!fetched || !summary) {
      await storeMissing(ctx, PL_CACHE, ref.id);
    } else {
      const act: PlAct = { ...summary, keywords: summary.keywords ?? [], apiUrl: fetched.url };
      await storeItem(ctx, PL_CACHE, ref.id, act, fetched.recordedSample);
    }
  });
}
