import { Prepared } from "./prepared.ts";
import { Repository } from "./repository.ts";

export interface CachedDocument<T> {
  body: T;
  fetchedAt: string;
  expiresAt: string | null;
  etag: string | null;
  lastModified: string | null;
  recordedSample: boolean;
}

export interface PutDocument<T> {
  body: T;
  fetchedAt: string;
  expiresAt?: string | null;
  etag?: string | null;
  lastModified?: string | null;
  recordedSample?: boolean;
}

export class CacheRepository extends Repository {
  private readonly recent = new Map<string, { at: number; doc: CachedDocument<unknown> | undefined }>();
  private reads: ((family: string, hit: boolean) => void) | undefined;
  private readonly read = new Prepared((v: { family: string; key: string }) =>
    this.db.selectFrom("cache_documents").selectAll().where("family", "=", v.family).where("key", "=", v.key),
  );

  /** Reports every read (metrics: hits and misses per family). */
  observe(reads: (family: string, hit: boolean) => void): void {
    this.reads = reads;
  }

  /**
   * The document as read at most `maxAgeMs` ago by this process: for checks on every request (such as
   * "is this a known currency") that must not cost a query each time. Writes through this repository
   * refresh it at once; other nodes' writes show within maxAgeMs.
   */
  async getRecent<T>(
    family: string,
    key: string,
    maxAgeMs: number,
    /** false: a document found missing is read again next time (another node may be filling it right now). */
    { rememberMiss = true }: { rememberMiss?: boolean } = {},
  ): Promise<CachedDocument<T> | undefined> {
    const memoKey = `${family}\u0000${key}`;
    const hit = this.recent.get(memoKey);
    if (hit && Date.now() - hit.at < maxAgeMs && (rememberMiss || hit.doc !== undefined)) {
      this.reads?.(family, hit.doc !== undefined);
      return hit.doc as CachedDocument<T> | undefined;
    }
    const doc = await this.get<T>(family, key);
    if (this.recent.size > 1000) this.recent.clear();
    this.recent.set(memoKey, { at: Date.now(), doc });
    return doc;
  }

  async get<T>(family: string, key: string): Promise<CachedDocument<T> | undefined> {
    const [row] = (await this.read.run(this.db, { family, key })).rows;
    this.reads?.(family, row !== undefined);
    if (!row) return undefined;
    return {
      body: JSON.parse(row.body) as T,
      fetchedAt: row.fetched_at,
      expiresAt: row.expires_at,
      etag: row.etag,
      lastModified: row.last_modified,
      recordedSample: row.recorded_sample === 1,
    };
  }

  async put<T>(family: string, key: string, doc: PutDocument<T>): Promise<void> {
    this.recent.delete(`${family}\u0000${key}`);
    const values = {
      body: JSON.stringify(doc.body),
      fetched_at: doc.fetchedAt,
      expires_at: doc.expiresAt ?? null,
      etag: doc.etag ?? null,
      last_modified: doc.lastModified ?? null,
      recorded_sample: doc.recordedSample ? 1 : 0,
    };
    await this.db
      .insertInto("cache_documents")
      .values({ family, key, ...values })
      .onConflict((oc) => oc.columns(["family", "key"]).doUpdateSet(values))
      .execute();
  }

  /** Writes many documents of one family in one transaction (a warmer's whole refresh lands at once). */
  async putMany<T>(family: string, docs: Array<{ key: string } & PutDocument<T>>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const repo = new CacheRepository(trx);
      for (const doc of docs) await repo.put(family, doc.key, doc);
    });
    for (const doc of docs) this.recent.delete(`${family}\u0000${doc.key}`);
  }

  async keys(family: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom("cache_documents")
      .select("key")
      .where("family", "=", family)
      .orderBy("key")
      .execute();
    return rows.map((r) => r.key);
  }

  async count(family: string): Promise<number> {
    const row = await this.db
      .selectFrom("cache_documents")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("family", "=", family)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
