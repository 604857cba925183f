// Builds and reads our index of Canada's federal corporations: the weekly warmer imports the open data archive
// (resumable; the new index is swapped in whole when every file was read), and lookups read the live index by
// corporation number or by business number root. In replay mode the recorded sample archive is imported on
// first use, so that the free sample answers offline.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { type BulkImportStatus, runBulkImport } from "../../shared/bulk-import.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import type { StoredCaCompany } from "./normalise.ts";
import { CA_COLLECTION, caBulkSource, openCaArchive } from "./upstream.ts";

export const CA_SKU = "gov.ca.companies";
export const CA_IMPORT_WARMER = "gov.ca.companies.import";
const WEEK_MS = 7 * 24 * 3600_000;

type Ctx = Pick<HandlerContext, "config" | "upstreams" | "store">;

export async function importCaArchive(
  ctx: Ctx,
  options: { sampleDir?: string; signal?: AbortSignal; batchSize?: number } = {},
): Promise<BulkImportStatus> {
  return withFetchHealth(ctx, CA_SKU, async () => {
    const opened = await openCaArchive(ctx, options.sampleDir);
    const status = await runBulkImport(ctx.store, await caBulkSource(opened), {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    });
    return status;
  });
}

export const caImportWarmer: Warmer = {
  name: CA_IMPORT_WARMER,
  everyMs: WEEK_MS,
  lane: "bulk",
  async run(ctx) {
    const status = await importCaArchive(ctx);
    return { release: status.release, rows: status.rows, errors: status.errors, files: status.files.length };
  },
};

const sampleImports = new WeakMap<object, Promise<unknown>>();

/** Replay mode: imports the recorded sample archive once, if no index is loaded yet. */
export async function ensureCaSampleIndex(ctx: Ctx): Promise<void> {
  if (ctx.upstreams.mode !== "replay") return;
  if ((await GovTitleIndex.of(ctx.store).liveGeneration(CA_COLLECTION)) !== undefined) return;
  let running = sampleImports.get(ctx.store);
  if (!running) {
    running = importCaArchive(ctx).finally(() => sampleImports.delete(ctx.store));
    sampleImports.set(ctx.store, running);
  }
  await running;
}

export async function caIndexLoaded(ctx: Pick<HandlerContext, "store">): Promise<boolean> {
  return (await GovTitleIndex.of(ctx.store).liveGeneration(CA_COLLECTION)) !== undefined;
}

export function lookupCorporation(ctx: Pick<HandlerContext, "store">, id: string) {
  return GovTitleIndex.of(ctx.store).get<StoredCaCompany>(CA_COLLECTION, id);
}

/**
 * The corporation holding a business number root (a word of every entry): active ones first, then the one
 * created last, when the root was reused by an amalgamation's successor.
 */
export async function lookupByBn9(
  ctx: Pick<HandlerContext, "store">,
  bn9: string,
): Promise<StoredCaCompany | undefined> {
  const found = await GovTitleIndex.of(ctx.store).search<StoredCaCompany>(CA_COLLECTION, bn9, 50);
  const holders = (found?.items ?? []).filter((c) => c.bn9 === bn9);
  holders.sort(
    (a, b) =>
      Number(b.active === true) - Number(a.active === true) ||
      (b.anniversaryDate ?? "").localeCompare(a.anniversaryDate ?? ""),
  );
  return holders[0];
}
