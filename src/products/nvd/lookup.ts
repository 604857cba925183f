// Fetch-on-miss: a buyer asked for a CVE that is not stored; one job per id fetches it with ?cveId=.
import type { HandlerContext, JobHandler } from "../../catalog/product.ts";
import { CVE_ID, normaliseCvePage } from "./normalise.ts";
import { NvdRepository } from "./repository.ts";
import type { NvdSettings } from "./settings.ts";
import { fetchCvePage } from "./upstream.ts";

export const CVE_LOOKUP_QUEUE = "nvd.cve";

/** Fetches one record: "stored", or "missing" when NVD has none with that id (it is remembered). */
export async function lookupCve(
  ctx: Pick<HandlerContext, "store" | "upstreams">,
  settings: NvdSettings,
  id: string,
  now = new Date(),
): Promise<"stored" | "missing"> {
  const fetched = await fetchCvePage(ctx, settings, { cveId: id });
  const page = normaliseCvePage(fetched.json);
  const repository = NvdRepository.of(ctx.store);
  const index = page.cves.findIndex((cve) => cve.id === id);
  const cve = page.cves[index];
  if (!cve) {
    await repository.markMissing(id, now.toISOString());
    return "missing";
  }
  await repository.upsertCves(
    [{ cve, raw: page.raw[index] }],
    "lookup",
    now.toISOString(),
    fetched.recordedSample,
  );
  await repository.clearMissing(id);
  return "stored";
}

export function cveLookupJob(settings: NvdSettings): JobHandler {
  return async (payload, ctx) => {
    const id = (payload as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || !CVE_ID.test(id)) {
      throw new Error(`nvd.cve job needs a CVE id, got ${JSON.stringify(id)}`);
    }
    const outcome = await lookupCve(ctx, settings, id);
    ctx.log.info({ id, outcome }, "nvd: CVE lookup finished");
  };
}
