// The warmer that keeps the UK name index on the latest monthly snapshot: it reads the download page daily
// (one small request), and downloads and imports only a snapshot it has not imported yet. The import resumes
// after a crash and swaps the new index in whole when the last row is read. Needs no Companies House key.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { type BulkImportStatus, bulkImportStatus, runBulkImport } from "../../shared/bulk-import.ts";
import { currentSnapshot, openSnapshot, SNAPSHOT_COLLECTION, snapshotBulkSource } from "./snapshot.ts";

export const GB_SNAPSHOT_WARMER = "gov.gb.companies.snapshot";
/** The fetch-health key of the snapshot download (the API's is the route's sku). */
export const GB_SNAPSHOT_HEALTH = "gov.gb.companies.snapshot";
const DAY_MS = 24 * 3600_000;

type Ctx = Pick<HandlerContext, "config" | "upstreams" | "store">;

export async function importSnapshot(
  ctx: Ctx,
  options: { sampleDir?: string; signal?: AbortSignal } = {},
): Promise<BulkImportStatus> {
  return withFetchHealth(ctx, GB_SNAPSHOT_HEALTH, async () => {
    const offered = await currentSnapshot(ctx);
    const { live } = await bulkImportStatus(ctx.store, SNAPSHOT_COLLECTION);
    let status: BulkImportStatus;
    if (live && live.release === offered.date) status = live;
    else {
      const opened = await openSnapshot(ctx, offered, options.sampleDir);
      status = await runBulkImport(
        ctx.store,
        snapshotBulkSource(opened),
        options.signal ? { signal: options.signal } : {},
      );
    }
    return status;
  });
}

export const gbSnapshotWarmer: Warmer = {
  name: GB_SNAPSHOT_WARMER,
  everyMs: DAY_MS,
  lane: "bulk",
  async run(ctx) {
    const status = await importSnapshot(ctx);
    return { release: status.release, rows: status.rows, errors: status.errors };
  },
};
