import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, test } from "node:test";
import { Kysely, sql } from "kysely";
import { nodeSqliteDialect, openSqlite } from "./sqlite-dialect.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-sqlite-dialect-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("a transaction that reads before it writes holds the write lock from its start (no 'database is locked' at its write)", async () => {
  const file = path.join(dir, "store.sqlite");
  const db = new Kysely<{ t: { id: number } }>({ dialect: nodeSqliteDialect(openSqlite(file)).dialect });
  await sql`create table t (id integer primary key)`.execute(db);
  // Another process's connection on the same file, refusing at once instead of waiting.
  const other = new DatabaseSync(file);
  other.exec("PRAGMA busy_timeout = 0");
  try {
    await db.transaction().execute(async (trx) => {
      assert.deepEqual(await trx.selectFrom("t").selectAll().execute(), []);
      assert.throws(() => other.exec("insert into t (id) values (1)"), /database is locked/);
      await trx.insertInto("t").values({ id: 2 }).execute();
    });
    other.exec("insert into t (id) values (1)");
    assert.deepEqual(
      (await db.selectFrom("t").select("id").orderBy("id").execute()).map((r) => r.id),
      [1, 2],
    );
  } finally {
    other.close();
    await db.destroy();
  }
});
