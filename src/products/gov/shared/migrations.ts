// The gov families' own title and name index: one entries table whose words (and the tails of long words,
// for German compounds) are searched through SQLite FTS5 on the embedded store and a GIN full-text index on
// PostgreSQL. Each collection is built as a new generation and
// swapped in with one update, so a search never sees half an index.
import { type Generated, type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import { isPostgres } from "../../../store/postgres-dialect.ts";
import { SEARCH_CHUNK_ROWS, SEQ_BLOCK_SPAN, writeSearchRows } from "./search-chunks.ts";

interface GovIndexEntryTable {
  seq: Generated<number>;
  collection: string;
  generation: number;
  id: string;
  title: string;
  /** The generation's token, then the folded words of the title and its alternatives: what is matched. */
  words: string;
  /** The search item as served, JSON. */
  body: string;
  updated_at: string;
}

interface GovIndexCollectionTable {
  collection: string;
  /** The generation searches read. */
  generation: number;
  entries: number;
  updated_at: string;
}

/** One bulk import of a collection (bulk-import.ts): what it reads, how far it got, what it found wrong. */
interface GovBulkImportTable {
  collection: string;
  /** The upstream's release the run reads ("2026-11"); a run of another release replaces an unfinished one. */
  release: string;
  /** JSON array of the file names read, in order. */
  files: string;
  /** The index generation being built (swapped in when the run finishes). */
  generation: number;
  /** Checkpoint: the file being read (index into files) and the last row of it committed. */
  file_index: number;
  file_row: number;
  /** Entries written into the generation, and rows kept aside for lookups. */
  rows: number;
  staged: number;
  errors: number;
  /** JSON array of the first malformed rows: { file, line, message }. */
  error_sample: string;
  /** Milliseconds spent importing, summed over every process that worked on the run. */
  busy_ms: number;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

/**
 * The block of `seq` values a generation's rows take (seq_base … seq_base + 2^36 − 1, below zero, apart from every
 * other generation and from rows numbered by the database), so that a search reads one generation by its seq range
 * instead of matching a token present in every row of it.
 */
interface GovIndexGenerationTable {
  collection: string;
  generation: number;
  seq_base: number;
  /**
   * 1 when the block's seq values follow the ranking (shorter titles in lower seq, see title-index.ts), so a
   * search takes the first matches by seq; 0 for blocks written in arrival order before that (searched by
   * sorting candidates), until their collection is next rebuilt.
   */
  ranked: Generated<number>;
}

/** Rows a bulk import keeps aside while it runs (one file's rows looked up by another's). */
interface GovBulkStagingTable {
  collection: string;
  generation: number;
  /** "" for rows looked up by key; a name for a small table read whole (a code table). */
  tab: string;
  key: string;
  value: string;
}

/**
 * PostgreSQL only: an entry's words as a stored tsvector, in a table of their own under a GIN index, so a search
 * reads narrow rows (about 70 a page) instead of whole entries, and nothing recomputes a tsvector.
 */
interface GovIndexSearchTable {
  seq: number;
  tsv: string;
}

/**
 * PostgreSQL only: the tables a big generation's search rows are split into, best first (search-chunks.ts).
 * `seq_from` … `seq_to` is the part of the generation's seq block a chunk holds.
 */
interface GovIndexSearchChunkTable {
  collection: string;
  generation: number;
  chunk: number;
  table_name: string;
  seq_from: number;
  seq_to: number;
}

export interface GovTables {
  gov_index_entries: GovIndexEntryTable;
  gov_index_search: GovIndexSearchTable;
  gov_index_collections: GovIndexCollectionTable;
  gov_bulk_imports: GovBulkImportTable;
  gov_bulk_staging: GovBulkStagingTable;
  gov_index_generations: GovIndexGenerationTable;
  gov_index_search_chunks: GovIndexSearchChunkTable;
}

export const GOV_MIGRATIONS: Record<string, Migration> = {
  "0100_gov_title_index": {
    async up(db: Kysely<unknown>) {
      const postgres = isPostgres(db);
      await db.schema
        .createTable("gov_index_entries")
        .addColumn("seq", postgres ? "bigserial" : "integer", (c) => c.primaryKey())
        .addColumn("collection", "text", (c) => c.notNull())
        .addColumn("generation", "integer", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull())
        .addColumn("title", "text", (c) => c.notNull())
        .addColumn("words", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("gov_index_entries_item_idx")
        .on("gov_index_entries")
        .columns(["collection", "generation", "id"])
        .unique()
        .execute();
      await db.schema
        .createTable("gov_index_collections")
        .addColumn("collection", "text", (c) => c.primaryKey())
        .addColumn("generation", "integer", (c) => c.notNull())
        .addColumn("entries", "integer", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      if (postgres) {
        await sql`create index gov_index_entries_words_idx on gov_index_entries using gin (to_tsvector('simple', words))`.execute(
          db,
        );
        return;
      }
      await sql`create virtual table gov_index_fts using fts5(words, content='gov_index_entries', content_rowid='seq', tokenize='unicode61 remove_diacritics 2', prefix='3 4')`.execute(
        db,
      );
      await sql`create trigger gov_index_entries_ai after insert on gov_index_entries begin
        insert into gov_index_fts(rowid, words) values (new.seq, new.words); end`.execute(db);
      await sql`create trigger gov_index_entries_ad after delete on gov_index_entries begin
        insert into gov_index_fts(gov_index_fts, rowid, words) values ('delete', old.seq, old.words); end`.execute(
        db,
      );
      await sql`create trigger gov_index_entries_au after update on gov_index_entries begin
        insert into gov_index_fts(gov_index_fts, rowid, words) values ('delete', old.seq, old.words);
        insert into gov_index_fts(rowid, words) values (new.seq, new.words); end`.execute(db);
    },
  },
  "0101_gov_bulk_imports": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("gov_bulk_imports")
        .addColumn("collection", "text", (c) => c.notNull())
        .addColumn("release", "text", (c) => c.notNull())
        .addColumn("files", "text", (c) => c.notNull())
        .addColumn("generation", "integer", (c) => c.notNull())
        .addColumn("file_index", "integer", (c) => c.notNull())
        .addColumn("file_row", "bigint", (c) => c.notNull())
        .addColumn("rows", "bigint", (c) => c.notNull())
        .addColumn("staged", "bigint", (c) => c.notNull())
        .addColumn("errors", "bigint", (c) => c.notNull())
        .addColumn("error_sample", "text", (c) => c.notNull())
        .addColumn("busy_ms", "bigint", (c) => c.notNull())
        .addColumn("started_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addColumn("finished_at", "text")
        .addPrimaryKeyConstraint("gov_bulk_imports_pk", ["collection", "release"])
        .execute();
      await db.schema
        .createTable("gov_bulk_staging")
        .addColumn("collection", "text", (c) => c.notNull())
        .addColumn("generation", "integer", (c) => c.notNull())
        .addColumn("tab", "text", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("gov_bulk_staging_pk", ["collection", "generation", "tab", "key"])
        .execute();
      await db.schema
        .createTable("gov_index_generations")
        .addColumn("collection", "text", (c) => c.notNull())
        .addColumn("generation", "integer", (c) => c.notNull())
        .addColumn("seq_base", "bigint", (c) => c.notNull().unique())
        .addPrimaryKeyConstraint("gov_index_generations_pk", ["collection", "generation"])
        .execute();
    },
  },
  "0102_gov_index_ranked_blocks": {
    async up(db: Kysely<unknown>) {
      // SQLite runs a migration's statements without a transaction around them: a start stopped during the
      // FTS rebuild below runs this again, so each step must find its own work done.
      const postgres = isPostgres(db);
      const columns = postgres
        ? []
        : (await sql<{ name: string }>`pragma table_info(gov_index_generations)`.execute(db)).rows;
      if (!columns.some((c) => c.name === "ranked")) {
        await db.schema
          .alterTable("gov_index_generations")
          .addColumn("ranked", "integer", (c) => c.notNull().defaultTo(0))
          .execute();
      }
      if (postgres) return;
      // Prefix indexes for query words of 3 to 12 letters: without one of the word's own length FTS5 merges
      // the doclists of every word it begins before the first match is known (35 ms for "comercio" among 5 M
      // company names, 1 ms with it). Rebuilt from the entries; the triggers name the table, not its layout.
      await sql`drop table if exists gov_index_fts`.execute(db);
      await sql`create virtual table gov_index_fts using fts5(words, content='gov_index_entries', content_rowid='seq', tokenize='unicode61 remove_diacritics 2', prefix='3 4 5 6 7 8 9 10 11 12')`.execute(
        db,
      );
      await sql`insert into gov_index_fts(gov_index_fts) values ('rebuild')`.execute(db);
    },
  },
  "0103_gov_index_search_table": {
    async up(db: Kysely<unknown>) {
      if (!isPostgres(db)) return;
      await sql`create table gov_index_search (seq bigint primary key
        references gov_index_entries (seq) on delete cascade, tsv tsvector not null)`.execute(db);
      // Each row's words and its collection's token (title-index.ts, collectionToken).
      await sql`insert into gov_index_search (seq, tsv)
        select seq, to_tsvector('simple', words || ' c' || regexp_replace(lower(collection), '[^a-z0-9]', '', 'g') || 'z')
        from gov_index_entries`.execute(db);
      await sql`create index gov_index_search_tsv_idx on gov_index_search using gin (tsv)`.execute(db);
      await sql`drop index gov_index_entries_words_idx`.execute(db);
    },
  },
  "0104_gov_index_search_chunks": {
    async up(db: Kysely<unknown>) {
      if (!isPostgres(db)) return;
      await sql`create table gov_index_search_chunks (collection text not null, generation integer not null,
        chunk integer not null, table_name text not null unique, seq_from bigint not null, seq_to bigint not null,
        primary key (collection, generation, chunk))`.execute(db);
      // Live ranked generations bigger than one chunk move out of the shared table now, not at their next build.
      const big = await sql<{ collection: string; generation: number; seq_base: string | number }>`
        select g.collection, g.generation, g.seq_base from gov_index_generations g
        join gov_index_collections c on c.collection = g.collection and c.generation = g.generation
        where g.ranked = 1 and c.entries > ${SEARCH_CHUNK_ROWS}`.execute(db);
      for (const row of big.rows) {
        const from = Number(row.seq_base);
        await writeSearchRows(
          db,
          row.collection,
          Number(row.generation),
          { from, to: from + SEQ_BLOCK_SPAN - 1 },
          SEARCH_CHUNK_ROWS,
        );
      }
    },
  },
};
