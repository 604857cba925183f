// Migration 0104 on a store written before it: runs on SQLite (nothing to do there) and, in the PostgreSQL run
// of the suite, on a PostgreSQL schema that the code before wrote (its search rows in the shared table).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { it } from "node:test";
import { sql } from "kysely";
import { TEST_DATABASE_URL, testDatabase } from "../../../../test/test-store.ts";
import { openStore } from "../../../store/store.ts";
import { GOV_MIGRATIONS } from "./migrations.ts";
import { GovTitleIndex } from "./title-index.ts";

it("upgrades a store written before chunk tables: its collection is answered best first, and takes changes", async () => {
  const database = testDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gov-upgrade-"));
  const open = (migrations: typeof GOV_MIGRATIONS) =>
    TEST_DATABASE_URL
      ? openStore(
          { kind: "postgres", url: TEST_DATABASE_URL, schema: database.env.DATABASE_SCHEMA, poolSize: 2 },
          migrations,
        )
      : openStore({ kind: "sqlite", file: path.join(dir, "gov.sqlite") }, migrations);
  try {
    const earlier = Object.fromEntries(Object.entries(GOV_MIGRATIONS).filter(([name]) => name < "0104"));
    const old = await open(earlier);
    const db = old.db as never;
    // What the code before wrote for a ranked generation: entries whose seq is the rank (shorter names lower),
    // written longest first, and on PostgreSQL their search rows in the shared table.
    const base = -(2 ** 36);
    const names = ["Nordic Timber Trading Group", "Nordic Timber Trading", "Nordic Timber"];
    await sql`insert into gov_index_generations (collection, generation, seq_base, ranked)
      values ('co-old', 1, ${base}, 1)`.execute(db);
    for (const [i, name] of names.entries()) {
      const words = name.toLowerCase();
      await sql`insert into gov_index_entries (seq, collection, generation, id, title, words, body, updated_at)
        values (${base + name.length * 2 ** 28}, 'co-old', 1, ${`o${i}`}, ${name}, ${words},
        ${JSON.stringify({ title: name })}, '2026-11-01T00:00:00.000Z')`.execute(db);
    }
    if (TEST_DATABASE_URL) {
      await sql`insert into gov_index_search (seq, tsv)
        select seq, to_tsvector('simple', words || ' ccooldz') from gov_index_entries`.execute(db);
    }
    await sql`insert into gov_index_collections (collection, generation, entries, updated_at)
      values ('co-old', 1, 3, '2026-11-01T00:00:00.000Z')`.execute(db);
    await old.close();

    const store = await open(GOV_MIGRATIONS);
    try {
      const index = GovTitleIndex.of(store);
      const titles = async (q: string) =>
        (await index.search<{ title: string }>("co-old", q, 10))?.items.map((i) => i.title);
      assert.deepEqual(await titles("timber"), [...names].reverse());
      await index.upsert("co-old", [{ id: "o9", title: "Nordic Tim", body: { title: "Nordic Tim" } }]);
      await index.remove("co-old", ["o2"]);
      assert.deepEqual(await titles("nordic"), [
        "Nordic Tim",
        "Nordic Timber Trading",
        "Nordic Timber Trading Group",
      ]);
    } finally {
      await store.close();
    }
  } finally {
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
