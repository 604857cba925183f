// The gov families' own title and name index: one entries table whose words (and the tails of long words,
// for German compounds) are searched through SQLite FTS5 on the embedded store and a GIN full-text index on
// PostgreSQL. Each collection is built as a new generation and
// swapped in with one update, so a search never sees half an index.
import { type Generated, type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import { isPostgres } from "../../../store/postgres-dialect.ts";

export interface GovIndexEntryTable {
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

export interface GovIndexCollectionTable {
  collection: string;
  /** The generation searches read. */
  generation: number;
  entries: number;
  updated_at: string;
}

export interface GovTables {
  gov_index_entries: GovIndexEntryTable;
  gov_index_collections: GovIndexCollectionTable;
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
};
