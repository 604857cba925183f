// PostgreSQL only: where a ranked generation's search rows live once it is built.
//
// A GIN scan collects every match into a bitmap before it returns the first, so one search table for a 5 M-name
// register costs a common word (600,000 matches) about 70 ms before any row is read, and the rows come back in
// heap order, not in rank order. So a generation is written, when it is swapped in, into tables of its own of at
// most `chunkRows` rows each, every one filled in seq order (a fresh table keeps the order it was filled in: its
// heap order is the ranking). A search reads the chunks best first and stops at the count cap: a common word is
// answered from the first chunk, a rare one probes every chunk's small index, and the first matches read are
// always the best.
//
// Small generations (up to one chunk) are not split: their rows go to the shared table gov_index_search, where a
// search sorts all of a collection's matches by seq. Rows a change feed adds to a live generation go there too
// ("late" rows, searched with the chunks).
import { type Kysely, sql } from "kysely";

/**
 * Marks a collection's rows in the shared table's search vectors (not in `words`, which SQLite indexes too), so
 * that a small collection's search can AND it in. Migration 0103 writes the same token for the rows it copies.
 */
export function collectionToken(collection: string): string {
  return `c${collection.toLowerCase().replace(/[^a-z0-9]/g, "")}z`;
}

/** Seq values in one generation's block (title-index.ts). */
export const SEQ_BLOCK_SPAN = 2 ** 36;

/** Rows of one chunk table: the most a common word makes a search collect before it can stop. */
export const SEARCH_CHUNK_ROWS = 250_000;

export interface SearchChunk {
  table: string;
  from: number;
  to: number;
}

/** A chunk table's name: the generation's seq block (unique among live blocks) and the chunk's number. */
function chunkTable(seqBase: number, chunk: number): string {
  return `gov_index_search_b${Math.abs(seqBase)}_${chunk}`;
}

/** The search vector of an entry's words (its own table: no collection token). */
const VECTOR = sql`strip(to_tsvector('simple', words))`;

/** The chunks of a generation, best first (none: its rows are in the shared table). */
export async function searchChunks(
  db: Kysely<unknown>,
  collection: string,
  generation: number,
): Promise<SearchChunk[]> {
  const rows = await sql<{ table_name: string; seq_from: string | number; seq_to: string | number }>`
    select table_name, seq_from, seq_to from gov_index_search_chunks
    where collection = ${collection} and generation = ${generation} order by chunk`.execute(db);
  return rows.rows.map((r) => ({ table: r.table_name, from: Number(r.seq_from), to: Number(r.seq_to) }));
}

/**
 * Writes the search rows of a generation between `from` and `to` (its seq block) from its entries: chunk tables
 * when it has more than `chunkRows` rows, otherwise rows of the shared table (with the collection's token). Run
 * again, it replaces what an earlier run wrote.
 */
export async function writeSearchRows(
  db: Kysely<unknown>,
  collection: string,
  generation: number,
  block: { from: number; to: number },
  chunkRows: number,
): Promise<void> {
  // One transaction: its settings hold for every statement, and a build stopped half-way leaves nothing.
  if (!db.isTransaction) {
    await db.transaction().execute((trx) => writeSearchRows(trx, collection, generation, block, chunkRows));
    return;
  }
  await dropSearchChunks(db, collection, [generation]);
  await sql`delete from gov_index_search where seq between ${block.from} and ${block.to}`.execute(db);
  // Every chunk's first seq: one pass over the generation's keys.
  const starts = await sql<{ seq: string | number }>`select seq from (
      select seq, row_number() over (order by seq) - 1 as n from gov_index_entries
      where seq between ${block.from} and ${block.to}) k where n % ${chunkRows} = 0 order by seq`.execute(db);
  if (starts.rows.length <= 1) {
    await sql`insert into gov_index_search (seq, tsv)
      select seq, to_tsvector('simple', words || ${` ${collectionToken(collection)}`}) from gov_index_entries
      where seq between ${block.from} and ${block.to}`.execute(db);
    return;
  }
  await sql`select set_config('maintenance_work_mem', '256MB', true)`.execute(db);
  const firsts = starts.rows.map((r) => Number(r.seq));
  for (let chunk = 0; chunk < firsts.length; chunk++) {
    const from = firsts[chunk] as number;
    const to = chunk + 1 < firsts.length ? (firsts[chunk + 1] as number) - 1 : block.to;
    const table = chunkTable(block.from, chunk);
    await sql`create table ${sql.id(table)} as select seq, ${VECTOR} as tsv from gov_index_entries
      where seq between ${from} and ${to} order by seq`.execute(db);
    await sql`create index ${sql.id(`${table}_tsv`)} on ${sql.id(table)} using gin (tsv)`.execute(db);
    await sql`alter table ${sql.id(table)} add primary key (seq)`.execute(db);
    await sql`analyze ${sql.id(table)}`.execute(db);
    await sql`insert into gov_index_search_chunks (collection, generation, chunk, table_name, seq_from, seq_to)
      values (${collection}, ${generation}, ${chunk}, ${table}, ${from}, ${to})`.execute(db);
  }
}

/** Drops the chunk tables of these generations of the collection. */
export async function dropSearchChunks(
  db: Kysely<unknown>,
  collection: string,
  generations: number[],
): Promise<void> {
  if (generations.length === 0) return;
  const rows = await sql<{ table_name: string }>`delete from gov_index_search_chunks
    where collection = ${collection} and generation in (${sql.join(generations)}) returning table_name`.execute(
    db,
  );
  for (const row of rows.rows) await sql`drop table if exists ${sql.id(row.table_name)}`.execute(db);
}

/** Removes the search rows of these seqs from the chunks that hold them (entries removed from a live generation). */
export async function deleteFromChunks(
  db: Kysely<unknown>,
  chunks: SearchChunk[],
  seqs: number[],
): Promise<void> {
  for (const chunk of chunks) {
    const mine = seqs.filter((s) => s >= chunk.from && s <= chunk.to);
    if (mine.length === 0) continue;
    await sql`delete from ${sql.id(chunk.table)} where seq in (${sql.join(mine)})`.execute(db);
  }
}
