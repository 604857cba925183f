// The job that fetches one law from e-Gov by law id or law number; a law asked by number is stored under
// its law id too, so both ids are served.
import type { HandlerContext } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { type EgovLaws, isLawId, normaliseLaw, pickLaw } from "./normalise.ts";
import { JP_CACHE, JP_SKU } from "./route.ts";
import { EGOV_SPEC, fetchLaw } from "./upstream.ts";

export async function fetchJpLaw(payload: unknown, ctx: HandlerContext): Promise<void> {
  const id = String((payload as { id?: unknown }).id);
  await withFetchHealth(ctx, JP_SKU, async () => {
    const fetched = await fetchLaw<EgovLaws>(
      ctx.upstreams.client(EGOV_SPEC),
      isLawId(id) ? { lawId: id } : { lawNum: id },
    );
    const law = pickLaw(fetched.json, id);
    const act = law ? normaliseLaw(law, fetched.url) : undefined;
    if (!act) {
      await storeMissing(ctx, JP_CACHE, id);
    } else {
      await storeItem(ctx, JP_CACHE, id, act, fetched.recordedSample);
      if (act.id !== id) await storeItem(ctx, JP_CACHE, act.id, act, fetched.recordedSample);
    }
  });
}
