// The job that completes one German law: its GII table-of-contents entry, with the abbreviation, ELI and
// dates NeuRIS has for the law of exactly that title. NeuRIS is a trial service: when it fails or has no such
// law, the GII facts are stored as they are (abbreviation null) and refreshed with the act a week later.
import type { HandlerContext } from "../../../../catalog/product.ts";
import { errorText } from "../../../../json.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { matchTitle, NEURIS_SPEC, type NeurisMatch, searchNeuris } from "./neuris.ts";
import { altOf, type DeAct } from "./normalise.ts";
import { DE_CACHE, DE_INDEX, DE_SKU } from "./warmer.ts";

export const DE_ACT_QUEUE = "gov.de.legislation.act";

function enrich(act: DeAct, match: NeurisMatch | undefined): DeAct {
  if (!match) return act;
  const dates = { ...act.dates };
  if (match.adopted) dates.adopted = match.adopted;
  if (match.published) dates.published = match.published;
  return { ...act, abbreviation: match.abbreviation, eli: match.eli, dates };
}

export async function fetchDeAct(payload: unknown, ctx: HandlerContext): Promise<void> {
  const id = String((payload as { id?: unknown }).id);
  const index = GovTitleIndex.of(ctx.store);
  const act = await index.get<DeAct>(DE_INDEX, id);
  if (!act) {
    await storeMissing(ctx, DE_CACHE, id);
    return;
  }
  await withFetchHealth(ctx, DE_SKU, async () => {
    let match: NeurisMatch | undefined;
    try {
      const found = await searchNeuris(ctx.upstreams.client(NEURIS_SPEC), act.title);
      match = matchTitle(found.search, act.title, found.url);
    } catch (error) {
      ctx.log.warn({ err: errorText(error), id }, "NeuRIS lookup failed; GII facts only");
    }
    const complete = enrich(act, match);
    await storeItem(ctx, DE_CACHE, id, complete, ctx.upstreams.mode === "replay");
    if (complete.abbreviation) {
      await index.upsert(DE_INDEX, [
        { id, title: complete.title, alt: `${altOf(id)} ${complete.abbreviation}`, body: complete },
      ]);
    }
  });
}
