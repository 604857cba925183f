// One monthly CNPJ release into our index "co-br" through the shared resumable bulk import: the code tables,
// Simples (MEI flags) and Empresas (company name, legal form, capital, size) are staged; each Estabelecimentos
// row becomes one entry (one CNPJ) joined with its company. Qualificacoes and Socios (partners: persons) are not
// read.

import { UpstreamError } from "../../../../upstream/client.ts";
import { type BulkImportSource, type BulkItem, runBulkImport } from "../../shared/bulk-import.ts";
import type { Ctx } from "../register.ts";
import {
  CODE_TABLES,
  type CodeTables,
  establishmentItem,
  fileKind,
  shareUrl,
  stagedRow,
} from "./normalise.ts";
import { csvRows } from "./parse.ts";
import {
  BR_COLLECTION,
  brShareUrl,
  listShare,
  openReleaseFile,
  removeDownloads,
  type ShareItem,
} from "./upstream.ts";

export { BR_COLLECTION };

export interface BrRelease {
  release: string;
  /** The files read, in import order, with their sizes from the listing. */
  files: ShareItem[];
}

const ORDER = { table: 0, simples: 1, empresas: 2, estabelecimentos: 3 } as const;

function partNumber(name: string): number {
  return Number(/(\d+)\.zip$/i.exec(name)?.[1] ?? 0);
}

/** The files of a release listing that are read, in order; undefined when the listing is not complete. */
export function releaseFiles(items: ShareItem[]): ShareItem[] | undefined {
  const read = items.filter((item) => !item.folder && fileKind(item.name) !== undefined);
  const count = (kind: keyof typeof ORDER) => read.filter((i) => fileKind(i.name)?.kind === kind).length;
  const complete =
    count("table") === CODE_TABLES.length &&
    count("simples") === 1 &&
    count("empresas") > 0 &&
    count("empresas") === count("estabelecimentos");
  if (!complete) return undefined;
  const rank = (item: ShareItem) => ORDER[(fileKind(item.name) as { kind: keyof typeof ORDER }).kind];
  return read.sort(
    (a, b) => rank(a) - rank(b) || partNumber(a.name) - partNumber(b.name) || a.name.localeCompare(b.name),
  );
}

/** The newest YYYY-MM folder whose listing is complete (the newest may still be uploading). */
export async function latestRelease(ctx: Ctx): Promise<BrRelease> {
  const folders = (await listShare(ctx))
    .filter((item) => item.folder && /^\d{4}-\d{2}$/.test(item.name))
    .map((item) => item.name)
    .sort()
    .reverse();
  for (const release of folders.slice(0, 3)) {
    const files = releaseFiles(await listShare(ctx, release));
    if (files) return { release, files };
  }
  throw new UpstreamError(
    "gov-br-receita-cnpj",
    `no complete release among the newest folders of the share (${folders.slice(0, 3).join(", ") || "none"})`,
  );
}

export function brImportSource(ctx: Ctx, release: BrRelease, signal?: AbortSignal): BulkImportSource {
  const sizes = new Map(release.files.map((f) => [f.name, f.size]));
  return {
    collection: BR_COLLECTION,
    release: release.release,
    files: release.files.map((f) => f.name),
    // Company names are not compounds: word starts only keep rows narrow (measured in bench/company-name-search.ts).
    index: { innerWords: false },
    async *items(file, afterRow, staged): AsyncGenerator<BulkItem> {
      const kind = fileKind(file);
      if (!kind) throw new Error(`${file} is not a CNPJ release file`);
      signal?.throwIfAborted();
      const csv = await openReleaseFile(ctx, release.release, file, sizes.get(file) ?? null, signal);
      const rows = csvRows(csv, afterRow);
      if (kind.kind !== "estabelecimentos") {
        for await (const row of rows) {
          const item = stagedRow(kind, row.line, row.fields);
          if (item) yield item;
        }
        return;
      }
      const tables = {} as Record<string, ReadonlyMap<string, unknown>>;
      for (const table of CODE_TABLES) tables[table] = await staged.table(table);
      const context = {
        file,
        release: release.release,
        fileUrl: shareUrl(brShareUrl(ctx), release.release, file),
      };
      for await (const row of rows) {
        yield establishmentItem(row.line, row.fields, tables as CodeTables, context);
      }
    },
  };
}

/**
 * Imports (or continues importing) a release; stops between batches when `signal` fires. Once it is in, the
 * downloaded file is removed: the next release has other URLs, so the copy is never read again.
 */
export async function importRelease(ctx: Ctx, release: BrRelease, signal?: AbortSignal) {
  const status = await runBulkImport(ctx.store, brImportSource(ctx, release, signal), {
    ...(signal ? { signal } : {}),
  });
  if (ctx.upstreams.mode === "live" && status.state === "finished") removeDownloads(ctx);
  return status;
}
