// "Sign every browser out": the time of the last revocation, shared by every node through the store (a row of
// cache_documents under a family no product uses). A session cookie issued before it is refused.
import type { Store } from "../store/store.ts";

const FAMILY = "paycall-admin";
const KEY = "sessions-revoked-at";

export class AdminSessions {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /** Epoch ms of the last revocation, 0 when none (read on every cookie check: operator traffic only). */
  async revokedAt(): Promise<number> {
    const row = await this.store.db
      .selectFrom("cache_documents")
      .select("body")
      .where("family", "=", FAMILY)
      .where("key", "=", KEY)
      .executeTakeFirst();
    const at = row ? Number(JSON.parse(row.body)) : 0;
    return Number.isFinite(at) ? at : 0;
  }

  async revokeAll(now = Date.now()): Promise<number> {
    await this.store.cache.put(FAMILY, KEY, { body: now, fetchedAt: new Date(now).toISOString() });
    return now;
  }
}
