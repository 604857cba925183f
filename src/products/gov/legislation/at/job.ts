// The job that reads one act from RIS by its Gesetzesnummer: every provision valid today (paged), or, when
// there is none, the act's provisions of every date to tell a repealed act from an unknown one.
import type { HandlerContext } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { actInForce, actNotInForce, type Provision, parseAtId, parseRisPage } from "./normalise.ts";
import { AT_CACHE, AT_SKU } from "./route.ts";
import { actHistory, actProvisions, MAX_ACT_PAGES, RIS_SPEC } from "./upstream.ts";

export async function fetchAtAct(payload: unknown, ctx: HandlerContext): Promise<void> {
  const parsed = parseAtId(String((payload as { id?: unknown }).id));
  if ("error" in parsed) throw new Error(`gov.at.legislation.act: ${parsed.error}`);
  const id = parsed.id;
  const client = ctx.upstreams.client(RIS_SPEC);
  await withFetchHealth(ctx, AT_SKU, async () => {
    const first = await actProvisions(client, id, 1);
    const page = parseRisPage(first.json);
    const provisions: Provision[] = [...page.provisions];
    for (let n = 2; n <= MAX_ACT_PAGES && provisions.length < page.hits; n++) {
      const next = parseRisPage((await actProvisions(client, id, n)).json).provisions;
      if (next.length === 0) break;
      provisions.push(...next);
    }
    if (provisions.length > 0) {
      await storeItem(ctx, AT_CACHE, id, actInForce(id, provisions, first.url), first.recordedSample);
    } else {
      const history = await actHistory(client, id);
      const past = parseRisPage(history.json).provisions;
      if (past.length === 0) await storeMissing(ctx, AT_CACHE, id);
      else await storeItem(ctx, AT_CACHE, id, actNotInForce(id, past, history.url), history.recordedSample);
    }
  });
}
