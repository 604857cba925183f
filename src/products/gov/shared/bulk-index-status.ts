// What a free status route says about an index built from bulk files: the release it holds, its rows and
// age, the import under way (progress, speed) and the malformed rows found, with file and line.
import { z } from "zod";
import { bulkImportStatus } from "./bulk-import.ts";
import { GovTitleIndex } from "./title-index.ts";

const ImportError = z.object({ file: z.string(), line: z.number().int(), message: z.string() });

export const BulkIndexStatus = z.object({
  loaded: z.boolean().describe("Whether an index is built and answering"),
  release: z.string().nullable().describe("The upstream release the index holds"),
  rows: z.number().int().nonnegative().describe("Entries in the index"),
  importedAt: z.iso.datetime().nullable().describe("When the index's import finished"),
  ageDays: z.number().nonnegative().nullable().describe("Days since that import finished"),
  errors: z.number().int().nonnegative().describe("Malformed rows skipped by that import"),
  errorSample: z.array(ImportError).describe("The first malformed rows, with file and line"),
  importing: z
    .object({
      release: z.string(),
      rows: z.number().int().nonnegative(),
      errors: z.number().int().nonnegative(),
      rowsPerSecond: z.number().nullable(),
      checkpoint: z.object({ file: z.string().nullable(), row: z.number().int() }),
      startedAt: z.iso.datetime(),
      updatedAt: z.iso.datetime(),
    })
    .nullable()
    .describe("The import under way, if any (resumed from its checkpoint after a restart)"),
});

type BulkIndexStatusBody = z.infer<typeof BulkIndexStatus>;

export async function readBulkIndexStatus(
  store: { db: unknown },
  collection: string,
  now = new Date(),
): Promise<BulkIndexStatusBody> {
  const index = GovTitleIndex.of(store);
  const [{ live, running }, generation, rows] = await Promise.all([
    bulkImportStatus(store, collection),
    index.liveGeneration(collection),
    index.count(collection),
  ]);
  const importedAt = live?.finishedAt ?? null;
  return {
    loaded: generation !== undefined,
    release: live?.release ?? null,
    rows,
    importedAt,
    ageDays: importedAt
      ? Math.round(((now.getTime() - Date.parse(importedAt)) / 86_400_000) * 10) / 10
      : null,
    errors: live?.errors ?? 0,
    errorSample: live?.errorSample ?? [],
    importing: running
      ? {
          release: running.release,
          rows: running.rows,
          errors: running.errors,
          rowsPerSecond: running.rowsPerSecond,
          checkpoint: running.checkpoint,
          startedAt: running.startedAt,
          updatedAt: running.updatedAt,
        }
      : null,
  };
}
