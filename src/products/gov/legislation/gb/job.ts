// The job that fetches one act's CLML table of contents from legislation.gov.uk by its id.
import type { HandlerContext } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { choicesOf, type GbAmbiguous, normaliseActContents, parseGbId } from "./normalise.ts";
import { GB_CACHE, GB_SKU } from "./route.ts";
import { fetchActContents, LEGISLATION_GOV_UK_SPEC } from "./upstream.ts";

export async function fetchGbAct(payload: unknown, ctx: HandlerContext): Promise<void> {
  const parsed = parseGbId(String((payload as { id?: unknown }).id));
  if ("error" in parsed) throw new Error(`gov.gb.legislation.act: ${parsed.error}`);
  await withFetchHealth(ctx, GB_SKU, async () => {
    const fetched = await fetchActContents(ctx.upstreams.client(LEGISLATION_GOV_UK_SPEC), parsed.id);
    if (fetched.kind === "missing") {
      await storeMissing(ctx, GB_CACHE, parsed.id);
    } else if (fetched.kind === "choices") {
      const choices = choicesOf(fetched.html);
      if (choices.length === 0) throw new Error(`HTTP 300 from ${fetched.url} lists no act`);
      const ambiguous: GbAmbiguous = { ambiguous: true, choices, apiUrl: fetched.url };
      await storeItem(ctx, GB_CACHE, parsed.id, ambiguous, fetched.recordedSample);
    } else {
      const act = normaliseActContents(fetched.xml, fetched.url);
      await storeItem(ctx, GB_CACHE, parsed.id, act, fetched.recordedSample);
    }
  });
}
