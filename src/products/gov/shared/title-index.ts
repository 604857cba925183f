// Our own title and name index, for registers and legislation whose upstream has no usable search (DE, CA,
// CH, EU legislation; company registers from bulk files). Every word of a query must match, case and
// diacritics folded: words of three letters or more anywhere inside a word (German compounds), shorter ones
// as whole words. Best matches first.
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../../../store/postgres-dialect.ts";
import type { GovTables } from "./migrations.ts";
import { searchWords } from "./query.ts";

export interface IndexEntry {
  id: string;
  title: string;
  /** More searchable words: an abbreviation, a short title, a former name. */
  alt?: string;
  /** The search item as served. */
  body: unknown;
  updatedAt?: string;
}

export interface IndexSearch<T> {
  totalCount: number;
  items: T[];
}

/** Most words of a query that are matched; the rest are ignored (and the answer's query says so). */
export const MAX_QUERY_WORDS = 12;
const BATCH = 400;

/** Marks the rows of one generation inside `words`; the closing "z" keeps generation 3 out of 31. */
function generationToken(collection: string, generation: number): string {
  return `g${collection.toLowerCase().replace(/[^a-z0-9]/g, "")}x${generation}z`;
}

/** Space-padded so that a short word is matched whole: " gg ". */
function wordsOf(entry: IndexEntry, token: string): string {
  return ` ${[token, ...searchWords(`${entry.title} ${entry.alt ?? ""}`)].join(" ")} `;
}

/** Words of one or two letters cannot use a trigram index; they are matched as whole words. */
function splitWords(words: string[]): { long: string[]; short: string[] } {
  return { long: words.filter((w) => [...w].length >= 3), short: words.filter((w) => [...w].length < 3) };
}

export class GovTitleIndex {
  private readonly db: Kysely<GovTables>;
  private readonly postgres: boolean;

  constructor(db: Kysely<GovTables>) {
    this.db = db;
    this.postgres = isPostgres(db as unknown as Kysely<unknown>);
  }

  static of(store: { db: unknown }): GovTitleIndex {
    return new GovTitleIndex(store.db as Kysely<GovTables>);
  }

  /** The generation searches read, or undefined before the collection's first build. */
  async liveGeneration(collection: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom("gov_index_collections")
      .select("generation")
      .where("collection", "=", collection)
      .executeTakeFirst();
    return row ? Number(row.generation) : undefined;
  }

  async count(collection: string): Promise<number> {
    const row = await this.db
      .selectFrom("gov_index_collections")
      .select("entries")
      .where("collection", "=", collection)
      .executeTakeFirst();
    return row ? Number(row.entries) : 0;
  }

  async lastUpdated(collection: string): Promise<string | null> {
    const row = await this.db
      .selectFrom("gov_index_collections")
      .select("updated_at")
      .where("collection", "=", collection)
      .executeTakeFirst();
    return row?.updated_at ?? null;
  }

  /**
   * Builds a new generation of the collection from `entries` (streamed in batches, never whole in memory) and
   * swaps it in with one update; rows of an earlier build that never finished are removed first.
   */
  async replaceCollection(
    collection: string,
    entries: AsyncIterable<IndexEntry> | Iterable<IndexEntry>,
    now = new Date(),
  ): Promise<number> {
    const live = await this.liveGeneration(collection);
    await this.deleteGenerations(collection, live);
    const top = await this.db
      .selectFrom("gov_index_entries")
      .select((eb) => eb.fn.max("generation").as("g"))
      .where("collection", "=", collection)
      .executeTakeFirst();
    const generation = Math.max(live ?? 0, Number(top?.g ?? 0)) + 1;
    const updatedAt = now.toISOString();
    let batch: IndexEntry[] = [];
    let written = 0;
    const seen = new Set<string>();
    for await (const entry of entries) {
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      batch.push(entry);
      if (batch.length >= BATCH) {
        await this.insert(collection, generation, batch, updatedAt);
        written += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) {
      await this.insert(collection, generation, batch, updatedAt);
      written += batch.length;
    }
    await this.db
      .insertInto("gov_index_collections")
      .values({ collection, generation, entries: written, updated_at: updatedAt })
      .onConflict((oc) =>
        oc.column("collection").doUpdateSet({ generation, entries: written, updated_at: updatedAt }),
      )
      .execute();
    await this.deleteGenerations(collection, generation);
    return written;
  }

  /** Adds or replaces items of the live generation (change feeds); creates the collection if needed. */
  async upsert(collection: string, entries: IndexEntry[], now = new Date()): Promise<void> {
    if (entries.length === 0) return;
    const generation = await this.liveGeneration(collection);
    if (generation === undefined) {
      await this.replaceCollection(collection, entries, now);
      return;
    }
    await this.remove(
      collection,
      entries.map((e) => e.id),
      generation,
    );
    for (let i = 0; i < entries.length; i += BATCH) {
      await this.insert(collection, generation, entries.slice(i, i + BATCH), now.toISOString());
    }
    await this.recount(collection, generation, now);
  }

  async remove(collection: string, ids: string[], generation?: number): Promise<void> {
    const live = generation ?? (await this.liveGeneration(collection));
    if (live === undefined || ids.length === 0) return;
    for (let i = 0; i < ids.length; i += BATCH) {
      await this.db
        .deleteFrom("gov_index_entries")
        .where("collection", "=", collection)
        .where("generation", "=", live)
        .where("id", "in", ids.slice(i, i + BATCH))
        .execute();
    }
    if (generation === undefined) await this.recount(collection, live, new Date());
  }

  async get<T>(collection: string, id: string): Promise<T | undefined> {
    const live = await this.liveGeneration(collection);
    if (live === undefined) return undefined;
    const row = await this.db
      .selectFrom("gov_index_entries")
      .select("body")
      .where("collection", "=", collection)
      .where("generation", "=", live)
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? (JSON.parse(row.body) as T) : undefined;
  }

  /** Undefined before the collection's first build; otherwise the matches, best first. */
  async search<T>(collection: string, q: string, limit: number): Promise<IndexSearch<T> | undefined> {
    const live = await this.liveGeneration(collection);
    if (live === undefined) return undefined;
    const words = [...new Set(searchWords(q))].slice(0, MAX_QUERY_WORDS);
    if (words.length === 0) return { totalCount: 0, items: [] };
    const token = generationToken(collection, live);
    return this.postgres
      ? this.searchPostgres<T>(token, words, limit)
      : this.searchSqlite<T>(token, words, limit);
  }

  private async searchSqlite<T>(token: string, words: string[], limit: number): Promise<IndexSearch<T>> {
    const { long, short } = splitWords(words);
    const match = [token, ...long].map((w) => `"${w}"`).join(" ");
    const whole = short.map((w) => sql`and e.words like ${`% ${w} %`}`);
    const [total, rows] = await Promise.all([
      sql<{ n: number }>`select count(*) as n from gov_index_fts
        join gov_index_entries e on e.seq = gov_index_fts.rowid
        where gov_index_fts match ${match} ${sql.join(whole, sql` `)}`.execute(this.db),
      sql<{ body: string }>`select e.body as body from gov_index_fts
        join gov_index_entries e on e.seq = gov_index_fts.rowid
        where gov_index_fts match ${match} ${sql.join(whole, sql` `)}
        order by gov_index_fts.rank, length(e.title) limit ${limit}`.execute(this.db),
    ]);
    return {
      totalCount: Number(total.rows[0]?.n ?? 0),
      items: rows.rows.map((r) => JSON.parse(r.body) as T),
    };
  }

  private async searchPostgres<T>(token: string, words: string[], limit: number): Promise<IndexSearch<T>> {
    const { long, short } = splitWords(words);
    const patterns = [...[token, ...long].map((w) => `%${w}%`), ...short.map((w) => `% ${w} %`)];
    const where = sql.join(
      patterns.map((p) => sql`words like ${p}`),
      sql` and `,
    );
    const [total, rows] = await Promise.all([
      sql<{ n: string }>`select count(*) as n from gov_index_entries where ${where}`.execute(this.db),
      sql<{ body: string }>`select body from gov_index_entries where ${where}
        order by length(title), title limit ${limit}`.execute(this.db),
    ]);
    return {
      totalCount: Number(total.rows[0]?.n ?? 0),
      items: rows.rows.map((r) => JSON.parse(r.body) as T),
    };
  }

  private async insert(
    collection: string,
    generation: number,
    entries: IndexEntry[],
    updatedAt: string,
  ): Promise<void> {
    const token = generationToken(collection, generation);
    await this.db
      .insertInto("gov_index_entries")
      .values(
        entries.map((entry) => ({
          collection,
          generation,
          id: entry.id,
          title: entry.title,
          words: wordsOf(entry, token),
          body: JSON.stringify(entry.body),
          updated_at: entry.updatedAt ?? updatedAt,
        })),
      )
      .execute();
  }

  private async recount(collection: string, generation: number, now: Date): Promise<void> {
    const row = await this.db
      .selectFrom("gov_index_entries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("collection", "=", collection)
      .where("generation", "=", generation)
      .executeTakeFirstOrThrow();
    await this.db
      .updateTable("gov_index_collections")
      .set({ entries: Number(row.n), updated_at: now.toISOString() })
      .where("collection", "=", collection)
      .execute();
  }

  /** Removes every generation of the collection but `keep`, in batches. */
  private async deleteGenerations(collection: string, keep: number | undefined): Promise<void> {
    for (;;) {
      let select = this.db
        .selectFrom("gov_index_entries")
        .select("seq")
        .where("collection", "=", collection)
        .limit(2000);
      if (keep !== undefined) select = select.where("generation", "!=", keep);
      const rows = await select.execute();
      if (rows.length === 0) return;
      await this.db
        .deleteFrom("gov_index_entries")
        .where(
          "seq",
          "in",
          rows.map((r) => r.seq),
        )
        .execute();
    }
  }
}
