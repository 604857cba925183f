// The job that fetches one CFR section: the title's currency date, the section's ancestors, its versions,
// and the agency list (kept a week: it changes with reorganisations only).
import type { HandlerContext } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import {
  type EcfrAgencies,
  type EcfrAncestry,
  type EcfrTitles,
  type EcfrVersions,
  normaliseSection,
  splitUsId,
  titleInfo,
} from "./normalise.ts";
import { US_CACHE, US_SKU } from "./route.ts";
import { ECFR_SPEC, fetchAgencies, fetchAncestry, fetchTitles, fetchVersions } from "./upstream.ts";

const AGENCIES_CACHE = "gov-leg-us-agencies";
const AGENCIES_FRESH_MS = 7 * 24 * 3600_000;

async function agencies(ctx: HandlerContext): Promise<EcfrAgencies> {
  const cached = await ctx.store.cache.get<EcfrAgencies>(AGENCIES_CACHE, "all");
  if (cached && Date.now() - Date.parse(cached.fetchedAt) < AGENCIES_FRESH_MS) return cached.body;
  const fetched = await fetchAgencies<EcfrAgencies>(ctx.upstreams.client(ECFR_SPEC));
  await ctx.store.cache.put(AGENCIES_CACHE, "all", {
    body: fetched.json,
    fetchedAt: new Date().toISOString(),
    recordedSample: fetched.recordedSample,
  });
  return fetched.json;
}

export async function fetchUsSection(payload: unknown, ctx: HandlerContext): Promise<void> {
  const ref = splitUsId(String((payload as { id?: unknown }).id));
  const client = ctx.upstreams.client(ECFR_SPEC);
  await withFetchHealth(ctx, US_SKU, async () => {
    const titles = await fetchTitles<EcfrTitles>(client);
    const title = titleInfo(titles.json, ref.title);
    const date = title?.upToDate;
    const ancestry = date
      ? await fetchAncestry<EcfrAncestry>(client, date, ref.title, ref.part, ref.section)
      : undefined;
    if (!ancestry) {
      await storeMissing(ctx, US_CACHE, ref.id);
      return;
    }
    const versions = await fetchVersions<EcfrVersions>(client, ref.title, ref.part, ref.section);
    const act = normaliseSection(ref, {
      titles: titles.json,
      ancestry: ancestry.json,
      versions: versions.json,
      agencies: await agencies(ctx),
      apiUrl: ancestry.url,
    });
    if (!act) await storeMissing(ctx, US_CACHE, ref.id);
    else await storeItem(ctx, US_CACHE, ref.id, act, ancestry.recordedSample);
  });
}
