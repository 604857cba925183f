// Our own title and name index, for registers and legislation whose upstream has no usable search (DE, CA,
// CH, EU legislation; company registers from bulk files). Every word of a query must match, case and
// diacritics folded: a word of three letters or more matches the start of a title word or of any tail of one
// at least four letters long (German compounds: "datenschutz" finds "Bundesdatenschutzgesetz"); shorter words
// match whole words. Shortest titles first; titles of one length in the order they were written.
//
// The ranking is in the row numbers: a generation's block of seq values is cut into one range per title length,
// and each entry takes the next seq of its length's range, so the matches in seq order are the best first and a
// search stops at the first `limit` of them instead of sorting every candidate. SQLite's FTS5 answers in seq
// order; PostgreSQL reads a big generation from chunk tables whose heap order is seq order (search-chunks.ts).
import { type Kysely, type RawBuilder, sql } from "kysely";
import { isPostgres } from "../../../store/postgres-dialect.ts";
import type { GovTables } from "./migrations.ts";
import { searchWords } from "./query.ts";
import {
  collectionToken,
  deleteFromChunks,
  dropSearchChunks,
  SEARCH_CHUNK_ROWS,
  SEQ_BLOCK_SPAN,
  type SearchChunk,
  searchChunks,
  writeSearchRows,
} from "./search-chunks.ts";

export interface IndexEntry {
  id: string;
  title: string;
  /** More searchable words: an abbreviation, a short title, a former name. */
  alt?: string;
  /** The search item as served. */
  body: unknown;
  updatedAt?: string;
}

interface IndexSearch<T> {
  totalCount: number;
  items: T[];
}

/** Most words of a query that are matched; the rest are ignored (and the answer's query says so). */
const MAX_QUERY_WORDS = 12;
const BATCH = 400;
/** Per database handle, the last write queued on each collection (see GovTitleIndex.upsert). */
const writersOf = new WeakMap<object, Map<string, Promise<void>>>();
/**
 * Bounds on the work of one search, so that a word found in half the titles costs what a rare one does:
 * matches are counted up to COUNT_CAP (more is reported as COUNT_CAP); the best-first order is over every match.
 * Only a generation written before blocks were ranked takes its order among its first RANKED_CANDIDATES matches.
 */
const COUNT_CAP = 10_000;
const RANKED_CANDIDATES = 1000;
/** One FTS5 merge step's work: negative merges segments of any level (as 'optimize' does), 64 pages a step. */
const MERGE_PAGES = -64;
const MAX_MERGE_STEPS = 20_000;

/**
 * Seq values of one generation's block (see GovIndexGenerationTable): generations built since blocks exist are
 * searched by seq range; older ones by their generation token.
 */
const SEQ_SPAN = SEQ_BLOCK_SPAN;
/** Title lengths with a seq range of their own in a ranked block; longer titles share the last one. */
const RANK_RANGES = 256;
const RANGE_SPAN = SEQ_SPAN / RANK_RANGES;

/** The first seq of the range an entry of this title takes in a ranked block starting at `base`. */
function rankRangeStart(base: number, title: string): number {
  return base + Math.min(title.length, RANK_RANGES - 1) * RANGE_SPAN;
}

/** A generation's block of seq values; `ranked` when seq order is the ranking (see the file's head). */
interface SeqBlock {
  base: number;
  ranked: boolean;
}

/** Collections up to this size are searched on PostgreSQL with their own token ANDed in (narrowedToCollection). */
const NARROW_BY_TOKEN_BELOW = 200_000;

/** Marks the rows of one generation inside `words`; the closing "z" keeps generation 3 out of 31. */
function generationToken(collection: string, generation: number): string {
  return `g${collection.toLowerCase().replace(/[^a-z0-9]/g, "")}x${generation}z`;
}

/** Shortest inner part of a word that is indexed on its own, so that "schutz" finds "Datenschutzgesetz". */
const MIN_INNER = 4;

/**
 * What is indexed for an entry: the generation token, every word, and every tail of a word that is at least
 * MIN_INNER letters long ("datenschutzgesetz" → "atenschutzgesetz", …, "gesetz", "esetz", "setz"), so that a
 * query word found at the start of any of them is found inside the word.
 */
function wordsOf(entry: IndexEntry, token: string | undefined, options: IndexOptions): string {
  const tokens = new Set<string>(token ? [token] : []);
  const inner = options.innerWords !== false;
  for (const word of searchWords(`${entry.title} ${entry.alt ?? ""}`)) {
    tokens.add(word);
    if (!inner) continue;
    const letters = [...word];
    for (let i = 1; i + MIN_INNER <= letters.length; i++) tokens.add(letters.slice(i).join(""));
  }
  return [...tokens].join(" ");
}

/** How a collection's entries are indexed. */
export interface IndexOptions {
  /**
   * Index the tails of long words too (default true), so that a query word is found inside a compound. Company
   * registers of millions of names turn it off: names are not compounds, and the tails make each row several
   * times wider (the index and the import several times slower); a query word then matches word starts only.
   */
  innerWords?: boolean;
}

/**
 * Function words of the register languages (folded). A query drops them when it has other words: "Gesetz über
 * den Datenschutz" searches gesetz + datenschutz; they are in nearly every title and would only cost time.
 */
const STOP_WORDS = new Set(
  (
    "a an and as at by for from in into of on or the to with " +
    "der die das des dem den ein eine einer eines und oder uber zur zum zu fur von vom mit bei im in am an auf aus " +
    "le la les l de du des d et ou en au aux a par pour sur dans " +
    "i w z o na do dla od po przez oraz lub ze we " +
    "a v ve z ze o na do pro k od s se"
  ).split(" "),
);

function queryWords(q: string): string[] {
  const words = [...new Set(searchWords(q))];
  const meaningful = words.filter((w) => !STOP_WORDS.has(w));
  return (meaningful.length > 0 ? meaningful : words).slice(0, MAX_QUERY_WORDS);
}

/** Query words of three letters or more match as prefixes (of words and their tails); shorter ones whole. */
function isPrefixWord(word: string): boolean {
  return [...word].length >= 3;
}

/**
 * Which rows of the table a search reads: a generation's seq block (ranked: best first in seq order), or
 * (generations built before blocks existed) its token.
 */
type Scope = { token: string } | { from: number; to: number; ranked: boolean };

/** The matching seqs of a scope, in seq order (SQLite's FTS5 answers in rowid order). */
function sqliteCandidates(scope: Scope, words: string[]): RawBuilder<unknown> {
  const terms = words.map((w) => (isPrefixWord(w) ? `"${w}"*` : `"${w}"`));
  const match = ("token" in scope ? [`"${scope.token}"`, ...terms] : terms).join(" ");
  const range = "token" in scope ? sql`` : sql`and rowid between ${scope.from} and ${scope.to}`;
  return sql`select rowid as seq from gov_index_fts where gov_index_fts match ${match} ${range}`;
}

/**
 * The matching seqs of a scope on PostgreSQL: the lowest `cap` of its chunk tables (each filled in seq order,
 * read best first, so the first matches read are the lowest seqs; see search-chunks.ts), and the lowest `cap`
 * of its rows in the shared table (small generations, change-feed rows), sorted there.
 */
function postgresCandidates(
  scope: Scope,
  words: string[],
  chunks: SearchChunk[],
  cap: number,
  collectionTokenToo?: string,
): RawBuilder<unknown> {
  const terms = words.map((w) => (isPrefixWord(w) ? `${w}:*` : w));
  const tokens = [
    ...("token" in scope ? [scope.token] : []),
    ...(collectionTokenToo ? [collectionTokenToo] : []),
  ];
  const query = [...tokens, ...terms].join(" & ");
  // `seq + 0`: the range is checked on each matching row, never as a primary-key bitmap ANDed with the GIN's
  // (the planner chose that without statistics: a scan of every key of the block, 400 ms at 5 M rows); and the
  // sort is a top-N sort of the matches, never a walk of the primary key in seq order.
  const range = "token" in scope ? sql`` : sql`and seq + 0 between ${scope.from} and ${scope.to}`;
  const shared = sql`select seq from gov_index_search where tsv @@ to_tsquery('simple', ${query}) ${range}
    order by seq + 0 limit ${cap}`;
  if (chunks.length === 0) return shared;
  const own = terms.join(" & ");
  const fromChunks = sql.join(
    chunks.map((c) => sql`select seq from ${sql.id(c.table)} where tsv @@ to_tsquery('simple', ${own})`),
    sql` union all `,
  );
  return sql`(select seq from (${fromChunks}) c limit ${cap}) union all (${shared})`;
}

/**
 * Settings of a PostgreSQL search's transaction: no parallel plan or synchronised scan (either would return a
 * chunk's rows out of heap order), and memory enough that a common word's bitmap stays exact (with the default
 * 4 MB a 400,000-match bitmap turns lossy and every row of its pages is checked again).
 */
const SEARCH_SETTINGS = sql`select set_config('max_parallel_workers_per_gather', '0', true),
  set_config('synchronize_seqscans', 'off', true), set_config('work_mem', '64MB', true)`;

/** PostgreSQL's "relation does not exist": a chunk table dropped by a rebuild swapped in meanwhile. */
function isDroppedTable(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "42P01";
}

/** Limits a test lowers to see them hold. */
interface TitleIndexLimits {
  /** Matches counted (more is reported as this many); default COUNT_CAP. */
  countCap?: number;
  /** PostgreSQL: rows of one chunk table; default SEARCH_CHUNK_ROWS. */
  chunkRows?: number;
}

export class GovTitleIndex {
  private readonly db: Kysely<GovTables>;
  private readonly postgres: boolean;
  private readonly countCap: number;
  private readonly chunkRows: number;

  constructor(db: Kysely<GovTables>, limits: TitleIndexLimits = {}) {
    this.db = db;
    this.postgres = isPostgres(db as unknown as Kysely<unknown>);
    this.countCap = limits.countCap ?? COUNT_CAP;
    this.chunkRows = limits.chunkRows ?? SEARCH_CHUNK_ROWS;
  }

  static of(store: { db: unknown }, limits: TitleIndexLimits = {}): GovTitleIndex {
    return new GovTitleIndex(store.db as Kysely<GovTables>, limits);
  }

  private get raw(): Kysely<unknown> {
    return this.db as unknown as Kysely<unknown>;
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
    options: IndexOptions = {},
  ): Promise<number> {
    const generation = await this.newGeneration(collection);
    const updatedAt = now.toISOString();
    let batch: IndexEntry[] = [];
    let written = 0;
    const seen = new Set<string>();
    for await (const entry of entries) {
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      batch.push(entry);
      if (batch.length >= BATCH) {
        await this.insertBatch(collection, generation, batch, updatedAt, options);
        written += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) {
      await this.insertBatch(collection, generation, batch, updatedAt, options);
      written += batch.length;
    }
    await this.swapIn(collection, generation, written, now);
    return written;
  }

  /**
   * Starts a generation of its own for a build: removes the rows of every generation but the live one (builds
   * that never finished) and returns a number above all of them. Searches keep reading the live one.
   */
  async newGeneration(collection: string): Promise<number> {
    const live = await this.liveGeneration(collection);
    await this.deleteGenerations(collection, live);
    const top = await this.db
      .selectFrom("gov_index_entries")
      .select((eb) => eb.fn.max("generation").as("g"))
      .where("collection", "=", collection)
      .executeTakeFirst();
    const generation = Math.max(live ?? 0, Number(top?.g ?? 0)) + 1;
    // The next block below every allocated one; two builds allocating at once: the unique base decides, retry.
    for (let attempt = 0; ; attempt++) {
      const lowest = await this.db
        .selectFrom("gov_index_generations")
        .select((eb) => eb.fn.min("seq_base").as("base"))
        .executeTakeFirst();
      const base = Math.min(0, Number(lowest?.base ?? 0)) - SEQ_SPAN;
      try {
        await this.db
          .insertInto("gov_index_generations")
          .values({ collection, generation, seq_base: base, ranked: 1 })
          .onConflict((oc) =>
            oc.columns(["collection", "generation"]).doUpdateSet({ seq_base: base, ranked: 1 }),
          )
          .execute();
        return generation;
      } catch (error) {
        if (attempt >= 4) throw error;
      }
    }
  }

  /** A generation's block of seq values; undefined for a generation built before blocks existed. */
  private async seqBlock(collection: string, generation: number): Promise<SeqBlock | undefined> {
    const row = await this.db
      .selectFrom("gov_index_generations")
      .select(["seq_base", "ranked"])
      .where("collection", "=", collection)
      .where("generation", "=", generation)
      .executeTakeFirst();
    return row ? { base: Number(row.seq_base), ranked: Number(row.ranked) === 1 } : undefined;
  }

  /**
   * The seq each entry takes: in a ranked block the next free one of its title length's range, otherwise the
   * next of the block (one writer per generation: the next values follow the highest one written).
   */
  private async nextSeqs(block: SeqBlock, entries: IndexEntry[]): Promise<number[]> {
    const starts = entries.map((e) => (block.ranked ? rankRangeStart(block.base, e.title) : block.base));
    const span = block.ranked ? RANGE_SPAN : SEQ_SPAN;
    const distinct = [...new Set(starts)];
    // One statement for every range the batch writes into: the highest seq written in each.
    const tops = await sql<{ start: number | string; top: number | string | null }>`${sql.join(
      distinct.map(
        (start) => sql`select ${start} as start, (select seq from gov_index_entries where seq >= ${start}
          and seq < ${start + span} order by seq desc limit 1) as top`,
      ),
      sql` union all `,
    )}`.execute(this.db);
    const next = new Map<number, number>();
    for (const row of tops.rows) {
      next.set(Number(row.start), row.top === null ? Number(row.start) : Number(row.top) + 1);
    }
    return starts.map((start) => {
      const seq = next.get(start) as number;
      next.set(start, seq + 1);
      return seq;
    });
  }

  /**
   * Writes entries into a generation being built (at most a few hundred a call). An id already in the
   * generation is kept as first written, so a batch written again after a crash changes nothing.
   */
  async insertBatch(
    collection: string,
    generation: number,
    entries: IndexEntry[],
    updatedAt: string,
    options: IndexOptions = {},
  ): Promise<void> {
    if (entries.length === 0) return;
    const block = await this.seqBlock(collection, generation);
    const seqs = block ? await this.nextSeqs(block, entries) : undefined;
    // A generation with a block is searched by seq range; an older one by its token.
    const token = block === undefined ? generationToken(collection, generation) : undefined;
    const insert = this.db
      .insertInto("gov_index_entries")
      .values(
        entries.map((entry, i) => ({
          ...(seqs ? { seq: seqs[i] } : {}),
          collection,
          generation,
          id: entry.id,
          title: entry.title,
          words: wordsOf(entry, token, options),
          body: JSON.stringify(entry.body),
          updated_at: entry.updatedAt ?? updatedAt,
        })),
      )
      .onConflict((oc) => oc.columns(["collection", "generation", "id"]).doNothing());
    // SQLite's FTS5 table follows the entries through triggers. PostgreSQL writes a ranked generation's search
    // rows when it is swapped in (writeSearchRows), and the rows added to it once it is live as they come.
    if (!this.postgres || (block?.ranked && generation !== (await this.liveGeneration(collection)))) {
      await insert.execute();
      return;
    }
    // PostgreSQL's search rows in the same statement, so an entry is never there without its search row.
    await sql`with written as (${insert.returning(["seq", "words"])})
      insert into gov_index_search (seq, tsv)
      select seq, to_tsvector('simple', words || ${` ${collectionToken(collection)}`}) from written`.execute(
      this.db,
    );
  }

  /** Rows written into a generation (being built or live). */
  async generationSize(collection: string, generation: number): Promise<number> {
    const row = await this.db
      .selectFrom("gov_index_entries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("collection", "=", collection)
      .where("generation", "=", generation)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Makes `generation` the one searches read (one update; run it inside the caller's transaction to commit
   * more with it), then — unless told not to — removes the rows of every other generation.
   */
  async swapIn(
    collection: string,
    generation: number,
    entries: number,
    now = new Date(),
    options: { removeOthers?: boolean } = {},
  ): Promise<void> {
    const updatedAt = now.toISOString();
    const block = this.postgres ? await this.seqBlock(collection, generation) : undefined;
    if (block?.ranked) {
      const range = { from: block.base, to: block.base + SEQ_SPAN - 1 };
      await writeSearchRows(this.raw, collection, generation, range, this.chunkRows);
    }
    await this.db
      .insertInto("gov_index_collections")
      .values({ collection, generation, entries, updated_at: updatedAt })
      .onConflict((oc) => oc.column("collection").doUpdateSet({ generation, entries, updated_at: updatedAt }))
      .execute();
    if (options.removeOthers !== false) await this.deleteGenerations(collection, generation);
  }

  /** Removes the rows of every generation of the collection but the live one. */
  async removeOtherGenerations(collection: string): Promise<void> {
    await this.deleteGenerations(collection, await this.liveGeneration(collection));
  }

  /**
   * After a bulk rebuild: SQLite merges FTS5's segments (a search then reads one list per word instead of one
   * per segment: p50 2.1 → 1.0 ms, p99 10.5 → 7.7 ms at 5 M names) in small steps, yielding between them: the
   * store is synchronous, and one 'optimize' held every request for 11 s. About 1,600 steps and 8 s at 5 M
   * names, the longest step 0.2 s. PostgreSQL vacuums the search tables.
   */
  async compact(): Promise<void> {
    if (this.postgres) {
      // Vacuumed, a chunk's rows carry their hint bits and its pages are all-visible: the first searches do not
      // write every page they read.
      const chunks = await this.db.selectFrom("gov_index_search_chunks").select("table_name").execute();
      for (const table of ["gov_index_search", ...chunks.map((c) => c.table_name)]) {
        await sql`vacuum (analyze) ${sql.id(table)}`.execute(this.db);
      }
      return;
    }
    const totalChanges = async () =>
      Number((await sql<{ n: number }>`select total_changes() as n`.execute(this.db)).rows[0]?.n ?? 0);
    for (let step = 0; step < MAX_MERGE_STEPS; step++) {
      const before = await totalChanges();
      await sql`insert into gov_index_fts(gov_index_fts, rank) values ('merge', ${MERGE_PAGES})`.execute(
        this.db,
      );
      // FTS5: total_changes() grows by 2 or more when a merge step did work.
      if ((await totalChanges()) - before < 2) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Adds or replaces items of the live generation (change feeds); creates the collection if needed. */
  /**
   * Adds or replaces `entries`, one writer of a collection at a time: two upserts at once (a buyer's inline
   * fetch and the worker's job for the same entity) would otherwise both build the first generation, or
   * remove each other's rows.
   */
  async upsert(collection: string, entries: IndexEntry[], now = new Date()): Promise<void> {
    if (entries.length === 0) return;
    await this.oneWriter(collection, (index) => index.upsertNow(collection, entries, now));
  }

  /** In this process a queue per collection; on PostgreSQL also an advisory lock held for the cluster. */
  private async oneWriter<T>(collection: string, write: (index: GovTitleIndex) => Promise<T>): Promise<T> {
    const writers = writersOf.get(this.db) ?? new Map<string, Promise<void>>();
    writersOf.set(this.db, writers);
    const previous = writers.get(collection) ?? Promise.resolve();
    const mine = previous.then(() =>
      this.postgres ? this.underClusterLock(collection, write) : write(this),
    );
    const settled = mine.then(
      () => {},
      () => {},
    );
    writers.set(collection, settled);
    try {
      return await mine;
    } finally {
      if (writers.get(collection) === settled) writers.delete(collection);
    }
  }

  private underClusterLock<T>(collection: string, write: (index: GovTitleIndex) => Promise<T>): Promise<T> {
    const key = `gov-index:${collection}`;
    return this.db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(hashtext(${key}))`.execute(conn);
      try {
        return await write(new GovTitleIndex(conn, { countCap: this.countCap, chunkRows: this.chunkRows }));
      } finally {
        await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(conn);
      }
    });
  }

  private async upsertNow(collection: string, entries: IndexEntry[], now: Date): Promise<void> {
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
      await this.insertBatch(collection, generation, entries.slice(i, i + BATCH), now.toISOString());
    }
    await this.recount(collection, generation, now);
  }

  async remove(collection: string, ids: string[], generation?: number): Promise<void> {
    const live = generation ?? (await this.liveGeneration(collection));
    if (live === undefined || ids.length === 0) return;
    const chunks = this.postgres ? await searchChunks(this.raw, collection, live) : [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const removed = await this.db
        .deleteFrom("gov_index_entries")
        .where("collection", "=", collection)
        .where("generation", "=", live)
        .where("id", "in", ids.slice(i, i + BATCH))
        .returning("seq")
        .execute();
      await deleteFromChunks(
        this.raw,
        chunks,
        removed.map((r) => Number(r.seq)),
      );
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

  /**
   * Entries of the live generation whose ids lie between `from` and `to` (inclusive), in id order: the
   * establishments of one company where ids are the company's root followed by more characters.
   */
  async getRange<T>(collection: string, from: string, to: string, limit: number): Promise<T[]> {
    const live = await this.liveGeneration(collection);
    if (live === undefined) return [];
    const rows = await this.db
      .selectFrom("gov_index_entries")
      .select("body")
      .where("collection", "=", collection)
      .where("generation", "=", live)
      .where("id", ">=", from)
      .where("id", "<=", to)
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((r) => JSON.parse(r.body) as T);
  }

  /**
   * PostgreSQL: the collection's own token for the GIN to AND with, when the collection is small. A GIN scan
   * finds a word's matches in every collection before the seq range is checked, so a small register searched
   * for a word common in a big one would pay for the big one's matches; ANDed with its token, a small
   * collection costs its own size. A big collection does without (its token's list would be as long as it).
   */
  private async narrowedToCollection(collection: string): Promise<string | undefined> {
    const entries = await this.count(collection);
    return entries <= NARROW_BY_TOKEN_BELOW ? collectionToken(collection) : undefined;
  }

  /** Undefined before the collection's first build; otherwise the matches, best first. */
  async search<T>(collection: string, q: string, limit: number): Promise<IndexSearch<T> | undefined> {
    try {
      return await this.searchOnce<T>(collection, q, limit);
    } catch (error) {
      // A rebuild swapped in between reading the live generation and its chunks: read the new one.
      if (!isDroppedTable(error)) throw error;
      return this.searchOnce<T>(collection, q, limit);
    }
  }

  private async searchOnce<T>(
    collection: string,
    q: string,
    limit: number,
  ): Promise<IndexSearch<T> | undefined> {
    const live = await this.liveGeneration(collection);
    if (live === undefined) return undefined;
    const words = queryWords(q);
    if (words.length === 0) return { totalCount: 0, items: [] };
    const block = await this.seqBlock(collection, live);
    // A generation with a seq block is bounded by seq range (FTS5 seeks within its doclists; PostgreSQL checks
    // it on the narrow search row), not by a token whose doclist holds every row of the generation.
    const scope: Scope =
      block === undefined
        ? { token: generationToken(collection, live) }
        : { from: block.base, to: block.base + SEQ_SPAN - 1, ranked: block.ranked };
    // At most countCap + 1 matches (on PostgreSQL, that many from the chunks and from the shared table) give
    // both the count and the answered rows: they are the lowest seqs of all matches.
    const cap = this.countCap + 1;
    const chunks = this.postgres ? await searchChunks(this.raw, collection, live) : [];
    const candidates = this.postgres
      ? postgresCandidates(scope, words, chunks, cap, await this.narrowedToCollection(collection))
      : sql`${sqliteCandidates(scope, words)} limit ${cap}`;
    // In a ranked block the lowest seqs are the best; an older block sorts its first RANKED_CANDIDATES by title
    // length (their titles are read).
    const ranked = "ranked" in scope && scope.ranked;
    const best = ranked
      ? sql`select seq from m order by seq limit ${limit}`
      : sql`select e.seq from gov_index_entries e where e.seq in (select seq from m limit ${RANKED_CANDIDATES})
          order by length(e.title), e.title, e.id limit ${limit}`;
    const query = sql<{
      kind: number;
      n: number | string;
      body: string | null;
      title: string | null;
      id: string | null;
    }>`with m as materialized (${candidates})
      select 0 as kind, count(*) as n, null as body, null as title, null as id from m
      union all
      select 1 as kind, seq as n, body, title, id from gov_index_entries where seq in (${best})`;
    // Only chunks need the settings (the shared table's matches are sorted); elsewhere they would cost three
    // round trips.
    const rows =
      chunks.length > 0
        ? await this.db.transaction().execute(async (trx) => {
            await SEARCH_SETTINGS.execute(trx);
            return query.execute(trx);
          })
        : await query.execute(this.db);
    const items = rows.rows
      .filter((r) => Number(r.kind) === 1)
      .map((r) => ({
        seq: Number(r.n),
        body: r.body as string,
        title: r.title as string,
        id: r.id as string,
      }));
    items.sort(
      ranked
        ? (a, b) => a.seq - b.seq
        : (a, b) =>
            a.title.length - b.title.length ||
            (a.title < b.title ? -1 : a.title > b.title ? 1 : 0) ||
            (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    return {
      totalCount: Math.min(Number(rows.rows.find((r) => Number(r.kind) === 0)?.n ?? 0), this.countCap),
      items: items.map((r) => JSON.parse(r.body) as T),
    };
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

  /** Removes every generation of the collection but `keep`, in batches, their seq blocks and chunk tables. */
  private async deleteGenerations(collection: string, keep: number | undefined): Promise<void> {
    let blocks = this.db.deleteFrom("gov_index_generations").where("collection", "=", collection);
    if (keep !== undefined) blocks = blocks.where("generation", "!=", keep);
    if (this.postgres) {
      let chunked = this.db
        .selectFrom("gov_index_search_chunks")
        .select("generation")
        .distinct()
        .where("collection", "=", collection);
      if (keep !== undefined) chunked = chunked.where("generation", "!=", keep);
      const generations = (await chunked.execute()).map((r) => Number(r.generation));
      await dropSearchChunks(this.raw, collection, generations);
    }
    for (;;) {
      let select = this.db
        .selectFrom("gov_index_entries")
        .select("seq")
        .where("collection", "=", collection)
        .limit(2000);
      if (keep !== undefined) select = select.where("generation", "!=", keep);
      const rows = await select.execute();
      if (rows.length === 0) {
        await blocks.execute();
        return;
      }
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
