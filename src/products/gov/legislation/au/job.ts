// The job that fetches one Title record from the Federal Register of Legislation by its id.
import type { HandlerContext } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { normaliseAct, parseAuId } from "./normalise.ts";
import { AU_CACHE, AU_SKU } from "./route.ts";
import { FRL_SPEC, fetchTitle } from "./upstream.ts";

export async function fetchAuAct(payload: unknown, ctx: HandlerContext): Promise<void> {
  const parsed = parseAuId(String((payload as { id?: unknown }).id));
  if ("error" in parsed) throw new Error(`gov.au.legislation.act: ${parsed.error}`);
  await withFetchHealth(ctx, AU_SKU, async () => {
    const fetched = await fetchTitle(ctx.upstreams.client(FRL_SPEC), parsed.id);
    if (!fetched) await storeMissing(ctx, AU_CACHE, parsed.id);
    else
      await storeItem(
        ctx,
        AU_CACHE,
        parsed.id,
        normaliseAct(fetched.json, fetched.url),
        fetched.recordedSample,
      );
  });
}
