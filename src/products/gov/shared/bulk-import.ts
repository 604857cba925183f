// Resumable bulk import into our own title index (GovTitleIndex), for registers published as big periodic files
// (Brazil's CNPJ release, Canada's corporations XML, the UK Companies House snapshot).
//
// Use: describe the run as a BulkImportSource and call runBulkImport(store, source).
// - `release` names what is read ("2026-11", a snapshot date); `files` lists what is read, in order.
// - `items(file, afterRow, staged)` reads one file and yields, in row order, one item per row it has something for,
//   starting AFTER row `afterRow` (0 = from the start; a resumed run passes its checkpoint): a reader that
//   cannot seek skips rows by reading them. Rows are numbered from 1; `line` (default: the row) is what an error
//   report shows. An item is one of
//     { row, entry }                     an index entry (IndexEntry) of the new generation
//     { row, stage: { key, value } }     a value kept aside for later rows of the run (another file's join key);
//                                        with `table`, a row of a small table a later reader loads whole
//     { row, lookup: keys, build }       an entry needing staged values: build(found) gets the staged values of
//                                        those keys (those found) and returns the entry, null to leave the row
//                                        out, or a string saying why the row is malformed
//     { row, error }                     a malformed row: counted and reported, not imported
// - Rows are written in batches; each batch commits with the checkpoint (file and row) in one transaction, so
//   a batch is there whole or not at all, and a run that crashed continues after its last checkpoint when it is
//   started again with the same release and files. A run of another release (or other files) discards the
//   unfinished one and starts over.
// - Searches read the live generation throughout; the new one is swapped in with one update only when the
//   whole run finished. Then the old generation and the staged values are removed.
// - bulkImportStatus(store, collection) gives the figures for a status route: release, rows, started/finished,
//   rows per second (time spent importing, summed over the processes that worked on the run), errors with a
//   sample of the first ones (file and line).
import { type Kysely, sql } from "kysely";
import type { GovTables } from "./migrations.ts";
import { GovTitleIndex, type IndexEntry, type IndexOptions } from "./title-index.ts";

export type BulkItem =
  | { row: number; line?: number; entry: IndexEntry }
  | { row: number; line?: number; stage: { key: string; value: unknown; table?: string } }
  | {
      row: number;
      line?: number;
      lookup: string[];
      build: (found: ReadonlyMap<string, unknown>) => IndexEntry | string | null;
    }
  | { row: number; line?: number; error: string };

export interface BulkImportSource {
  /** The title-index collection built ("co-br"). */
  collection: string;
  release: string;
  files: readonly string[];
  /**
   * The items of one file after row `afterRow`, in row order. `staged` reads values kept aside by earlier files
   * (a reader may load a small code table whole with `table`).
   */
  items: (file: string, afterRow: number, staged: StagedValues) => AsyncIterable<BulkItem>;
  index?: IndexOptions;
}

/** Values staged by the run so far, for a file's reader. */
export interface StagedValues {
  /** Values staged without a table, by key. */
  get: (keys: string[]) => Promise<Map<string, unknown>>;
  /** Every value staged into `table` (small tables only), by key. */
  table: (table: string) => Promise<Map<string, unknown>>;
}

interface BulkImportError {
  file: string;
  line: number;
  message: string;
}

export interface BulkImportStatus {
  collection: string;
  release: string;
  files: string[];
  state: "running" | "finished";
  /** Entries written (exact once finished). */
  rows: number;
  staged: number;
  errors: number;
  /** The first malformed rows (at most ERROR_SAMPLE). */
  errorSample: BulkImportError[];
  startedAt: string;
  updatedAt: string;
  finishedAt: string | null;
  /** Rows read (entries + staged + errors) per second of importing; null before the first batch. */
  rowsPerSecond: number | null;
  /** Where a resumed run continues: the file being read and its last committed row. */
  checkpoint: { file: string | null; row: number };
}

interface BulkImportOptions {
  /** Items committed per transaction (default 2000). */
  batchSize?: number;
  /** Stops between batches; the run stays resumable. */
  signal?: AbortSignal;
  now?: () => Date;
  /** Called after each committed batch. */
  onProgress?: (status: BulkImportStatus) => void;
}

/** How many malformed rows a run keeps for its status (all are counted). */
const ERROR_SAMPLE = 20;
const DEFAULT_BATCH = 2000;
/** Rows per insert statement (SQLite and PostgreSQL bind-parameter limits). */
const CHUNK = 400;
/** Finished runs kept per collection, for the status. */
const FINISHED_KEPT = 3;

type Db = Kysely<GovTables>;
type RunRow = GovTables["gov_bulk_imports"];

function dbOf(store: { db: unknown }): Db {
  return store.db as Db;
}

/**
 * Imports (or continues importing) `source` into its collection and swaps the new generation in when every file
 * was read. A release already imported and finished is not read again. Throws when reading fails (the run stays
 * resumable); malformed rows do not throw, they are counted and sampled.
 */
export async function runBulkImport(
  store: { db: unknown },
  source: BulkImportSource,
  options: BulkImportOptions = {},
): Promise<BulkImportStatus> {
  const db = dbOf(store);
  const now = options.now ?? (() => new Date());
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const run = await openRun(db, source, now());
  if (run.finished_at !== null) return statusOf(run);
  const files = JSON.parse(run.files) as string[];
  let state = run;
  for (let fileIndex = Number(run.file_index); fileIndex < files.length; fileIndex++) {
    const file = files[fileIndex] as string;
    const afterRow = fileIndex === Number(run.file_index) ? Number(run.file_row) : 0;
    const batch = new Batch(file, fileIndex, afterRow);
    // A commit's own time is counted with the next batch (it cannot record itself).
    let clock = Date.now();
    for await (const item of source.items(file, afterRow, stagedReader(db, source.collection, run))) {
      if (item.row <= batch.lastRow) {
        throw new Error(`${source.collection}: ${file} gave row ${item.row} after row ${batch.lastRow}`);
      }
      batch.add(item);
      if (batch.size >= batchSize) {
        const started = Date.now();
        state = await commit(db, source, state, batch, started - clock, now());
        clock = started;
        options.onProgress?.(statusOf(state));
        batch.clear();
        if (options.signal?.aborted) throw abortError(options.signal);
      }
    }
    batch.endOfFile = true;
    state = await commit(db, source, state, batch, Date.now() - clock, now());
    options.onProgress?.(statusOf(state));
    if (options.signal?.aborted && fileIndex + 1 < files.length) throw abortError(options.signal);
  }
  return finish(db, source, state, now());
}

/** The latest finished run and the run under way (if any) of a collection. */
export async function bulkImportStatus(
  store: { db: unknown },
  collection: string,
): Promise<{ live: BulkImportStatus | null; running: BulkImportStatus | null }> {
  const rows = await dbOf(store)
    .selectFrom("gov_bulk_imports")
    .selectAll()
    .where("collection", "=", collection)
    .orderBy("started_at", "desc")
    .execute();
  const running = rows.find((r) => r.finished_at === null);
  const live = rows
    .filter((r) => r.finished_at !== null)
    .sort((a, b) => String(b.finished_at).localeCompare(String(a.finished_at)))[0];
  return { live: live ? statusOf(live) : null, running: running ? statusOf(running) : null };
}

/** The release of the collection's live generation, when a bulk import built it. */
export async function importedRelease(store: { db: unknown }, collection: string): Promise<string | null> {
  return (await bulkImportStatus(store, collection)).live?.release ?? null;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error("bulk import stopped");
}

/** The run to continue, a finished one of the same release, or a new one (an unfinished other run discarded). */
async function openRun(db: Db, source: BulkImportSource, now: Date): Promise<RunRow> {
  const files = JSON.stringify(source.files);
  const runs = await db
    .selectFrom("gov_bulk_imports")
    .selectAll()
    .where("collection", "=", source.collection)
    .execute();
  const index = new GovTitleIndex(db);
  const live = await index.liveGeneration(source.collection);
  const same = runs.find((r) => r.release === source.release && r.files === files);
  if (same?.finished_at != null && Number(same.generation) === live) return same;
  // An unfinished run continues unless another build of the collection replaced it meanwhile (its generation
  // went live, or its rows were removed).
  if (same && same.finished_at === null) {
    const generation = Number(same.generation);
    const kept =
      generation !== live &&
      (Number(same.rows) === 0 || (await index.generationSize(source.collection, generation)) > 0);
    if (kept) return same;
  }
  for (const stale of runs.filter((r) => r.finished_at === null || r.release === source.release)) {
    await discard(db, stale);
  }
  const generation = await index.newGeneration(source.collection);
  const stamp = now.toISOString();
  const run: RunRow = {
    collection: source.collection,
    release: source.release,
    files,
    generation,
    file_index: 0,
    file_row: 0,
    rows: 0,
    staged: 0,
    errors: 0,
    error_sample: "[]",
    busy_ms: 0,
    started_at: stamp,
    updated_at: stamp,
    finished_at: null,
  };
  await db.insertInto("gov_bulk_imports").values(run).execute();
  return run;
}

async function discard(db: Db, run: RunRow): Promise<void> {
  await deleteStaging(db, run.collection, Number(run.generation));
  await db
    .deleteFrom("gov_bulk_imports")
    .where("collection", "=", run.collection)
    .where("release", "=", run.release)
    .execute();
}

async function deleteStaging(db: Db, collection: string, generation: number): Promise<void> {
  for (;;) {
    const rows = await db
      .selectFrom("gov_bulk_staging")
      .select(["tab", "key"])
      .where("collection", "=", collection)
      .where("generation", "=", generation)
      .orderBy("tab")
      .orderBy("key")
      .limit(5000)
      .execute();
    const last = rows.at(-1);
    if (!last) return;
    // Everything up to the last row read, in primary-key order: one range delete per round.
    await db
      .deleteFrom("gov_bulk_staging")
      .where("collection", "=", collection)
      .where("generation", "=", generation)
      .where((eb) =>
        eb.or([eb("tab", "<", last.tab), eb.and([eb("tab", "=", last.tab), eb("key", "<=", last.key)])]),
      )
      .execute();
  }
}

/** The items of one file read since the last commit. */
class Batch {
  readonly file: string;
  readonly fileIndex: number;
  lastRow: number;
  endOfFile = false;
  items: BulkItem[] = [];

  constructor(file: string, fileIndex: number, afterRow: number) {
    this.file = file;
    this.fileIndex = fileIndex;
    this.lastRow = afterRow;
  }

  get size(): number {
    return this.items.length;
  }

  add(item: BulkItem): void {
    this.items.push(item);
    this.lastRow = item.row;
  }

  clear(): void {
    this.items = [];
  }
}

/** Writes a batch and moves the checkpoint past it, in one transaction. */
async function commit(
  db: Db,
  source: BulkImportSource,
  run: RunRow,
  batch: Batch,
  busyMs: number,
  now: Date,
): Promise<RunRow> {
  const generation = Number(run.generation);
  const staged = batch.items.flatMap((i) => ("stage" in i ? [i] : []));
  const errors: BulkImportError[] = [];
  const entries: IndexEntry[] = [];
  const lookups = batch.items.flatMap((i) => ("lookup" in i ? i.lookup : []));
  return db.transaction().execute(async (trx) => {
    for (let i = 0; i < staged.length; i += CHUNK) {
      await trx
        .insertInto("gov_bulk_staging")
        .values(
          staged.slice(i, i + CHUNK).map((s) => ({
            collection: source.collection,
            generation,
            tab: s.stage.table ?? "",
            key: s.stage.key,
            value: JSON.stringify(s.stage.value),
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(["collection", "generation", "tab", "key"])
            .doUpdateSet({ value: (eb) => eb.ref("excluded.value") }),
        )
        .execute();
    }
    const found = await stagedValues(trx, source.collection, generation, lookups);
    for (const item of batch.items) {
      const line = item.line ?? item.row;
      if ("entry" in item) entries.push(item.entry);
      else if ("error" in item) errors.push({ file: batch.file, line, message: item.error });
      else if ("lookup" in item) {
        const built = item.build(found);
        if (typeof built === "string") errors.push({ file: batch.file, line, message: built });
        else if (built) entries.push(built);
      }
    }
    const index = new GovTitleIndex(trx);
    for (let i = 0; i < entries.length; i += CHUNK) {
      await index.insertBatch(
        source.collection,
        generation,
        entries.slice(i, i + CHUNK),
        now.toISOString(),
        source.index,
      );
    }
    const sample = JSON.parse(run.error_sample) as BulkImportError[];
    const next: RunRow = {
      ...run,
      file_index: batch.endOfFile ? batch.fileIndex + 1 : batch.fileIndex,
      file_row: batch.endOfFile ? 0 : batch.lastRow,
      rows: Number(run.rows) + entries.length,
      staged: Number(run.staged) + staged.length,
      errors: Number(run.errors) + errors.length,
      error_sample: JSON.stringify([...sample, ...errors].slice(0, ERROR_SAMPLE)),
      busy_ms: Number(run.busy_ms) + Math.max(0, busyMs),
      updated_at: now.toISOString(),
    };
    const moved = await trx
      .updateTable("gov_bulk_imports")
      .set({
        file_index: next.file_index,
        file_row: next.file_row,
        rows: next.rows,
        staged: next.staged,
        errors: next.errors,
        error_sample: next.error_sample,
        busy_ms: next.busy_ms,
        updated_at: next.updated_at,
      })
      .where("collection", "=", run.collection)
      .where("release", "=", run.release)
      .where("generation", "=", generation)
      .where("file_index", "=", Number(run.file_index))
      .where("file_row", "=", Number(run.file_row))
      .where("finished_at", "is", null)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) {
      throw new Error(
        `${source.collection} ${source.release}: another process moved this import on; stopping`,
      );
    }
    return next;
  });
}

async function stagedValues(
  db: Db,
  collection: string,
  generation: number,
  keys: string[],
): Promise<Map<string, unknown>> {
  const found = new Map<string, unknown>();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const rows = await db
      .selectFrom("gov_bulk_staging")
      .select(["key", "value"])
      .where("collection", "=", collection)
      .where("generation", "=", generation)
      .where("tab", "=", "")
      .where("key", "in", unique.slice(i, i + CHUNK))
      .execute();
    for (const row of rows) found.set(row.key, JSON.parse(row.value));
  }
  return found;
}

function stagedReader(db: Db, collection: string, run: RunRow): StagedValues {
  const generation = Number(run.generation);
  return {
    get: (keys) => stagedValues(db, collection, generation, keys),
    async table(table) {
      const rows = await db
        .selectFrom("gov_bulk_staging")
        .select(["key", "value"])
        .where("collection", "=", collection)
        .where("generation", "=", generation)
        .where("tab", "=", table)
        .execute();
      return new Map(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
    },
  };
}

/** Swaps the finished generation in together with the run's end, then clears what the run left behind. */
async function finish(db: Db, source: BulkImportSource, run: RunRow, now: Date): Promise<BulkImportStatus> {
  const generation = Number(run.generation);
  const stamp = now.toISOString();
  const rows = await new GovTitleIndex(db).generationSize(source.collection, generation);
  const done: RunRow = { ...run, rows, finished_at: stamp, updated_at: stamp };
  await db.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable("gov_bulk_imports")
      .set({ rows, finished_at: stamp, updated_at: stamp })
      .where("collection", "=", run.collection)
      .where("release", "=", run.release)
      .where("finished_at", "is", null)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) !== 1) {
      throw new Error(`${source.collection} ${source.release}: another process finished this import`);
    }
    await new GovTitleIndex(trx).swapIn(source.collection, generation, rows, now, { removeOthers: false });
  });
  const index = new GovTitleIndex(db);
  await index.removeOtherGenerations(source.collection);
  await deleteStaging(db, source.collection, generation);
  // An optimisation only: the import is done and swapped in whatever it says.
  await index.compact().catch(() => undefined);
  const finished = await db
    .selectFrom("gov_bulk_imports")
    .select(["release", "finished_at"])
    .where("collection", "=", source.collection)
    .where("finished_at", "is not", null)
    .orderBy("finished_at", "desc")
    .execute();
  const old = finished.slice(FINISHED_KEPT).map((r) => r.release);
  if (old.length > 0) {
    await db
      .deleteFrom("gov_bulk_imports")
      .where("collection", "=", source.collection)
      .where("release", "in", old)
      .execute();
  }
  return statusOf(done);
}

function statusOf(run: RunRow): BulkImportStatus {
  const files = JSON.parse(run.files) as string[];
  const rows = Number(run.rows);
  const staged = Number(run.staged);
  const errors = Number(run.errors);
  const busy = Number(run.busy_ms);
  return {
    collection: run.collection,
    release: run.release,
    files,
    state: run.finished_at === null ? "running" : "finished",
    rows,
    staged,
    errors,
    errorSample: JSON.parse(run.error_sample) as BulkImportError[],
    startedAt: run.started_at,
    updatedAt: run.updated_at,
    finishedAt: run.finished_at,
    rowsPerSecond: busy > 0 ? Math.round(((rows + staged + errors) * 1000) / busy) : null,
    checkpoint: { file: files[Number(run.file_index)] ?? null, row: Number(run.file_row) },
  };
}

/** For tests and benchmarks: how many staged values a collection holds. */
export async function stagedCount(store: { db: unknown }, collection: string): Promise<number> {
  const row = await sql<{ n: number | string }>`select count(*) as n from gov_bulk_staging
    where collection = ${collection}`.execute(dbOf(store));
  return Number(row.rows[0]?.n ?? 0);
}
