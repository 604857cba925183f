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
  async get<T>(family: string, key: string): Promise<CachedDocument<T> | undefined> {
    const row = await this.db
      .selectFrom("cache_documents")
      .selectAll()
      .where("family", "=", family)
      .where("key", "=", key)
      .executeTakeFirst();
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
