// The job that fetches one act or regulation's XML from Justice Laws, joined with its Legis.xml record.
import type { HandlerContext } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { type CaIndexItem, normaliseAct, parseActXml } from "./normalise.ts";
import { fetchActXml, JUSTICE_LAWS_SPEC } from "./upstream.ts";
import { CA_CACHE, CA_INDEX, CA_SKU } from "./warmer.ts";

export async function fetchCaAct(payload: unknown, ctx: HandlerContext): Promise<void> {
  const code = String((payload as { code?: unknown }).code);
  await withFetchHealth(ctx, CA_SKU, async () => {
    const fetched = await fetchActXml(ctx.upstreams.client(JUSTICE_LAWS_SPEC), code);
    if (!fetched) {
      await storeMissing(ctx, CA_CACHE, code);
    } else {
      const indexed = await GovTitleIndex.of(ctx.store).get<CaIndexItem>(CA_INDEX, code);
      const act = normaliseAct(code, parseActXml(fetched.xml), indexed, {
        url: fetched.url,
        scrapedAt: new Date().toISOString(),
      });
      await storeItem(ctx, CA_CACHE, code, act, fetched.recordedSample);
    }
  });
}
