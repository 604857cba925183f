// A PostgreSQL store in a schema of its own for one bench run, dropped afterwards; skipped with a message when
// the server does not answer. With `keepSchema` the named schema is used and left in place (a bench run reusing
// what an earlier run built).
import { randomBytes } from "node:crypto";
import type { Migration } from "kysely/migration";
import pg from "pg";
import { openStore, type Store } from "../src/store/store.ts";

export async function onScratchPostgres(
  url: string,
  migrations: Record<string, Migration>,
  run: (store: Store) => Promise<void>,
  keepSchema?: string,
): Promise<void> {
  const schema = keepSchema ?? `bench_${randomBytes(4).toString("hex")}`;
  let store: Store;
  try {
    store = await openStore({ kind: "postgres", url, schema, poolSize: 2 }, migrations);
  } catch (error) {
    console.log(`PostgreSQL skipped: ${String(error).slice(0, 160)}`);
    return;
  }
  try {
    await run(store);
  } finally {
    await store.close();
    if (!keepSchema) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    }
  }
}
