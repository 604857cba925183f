// Which store the tests run on: SQLite in memory by default; with PAYCALL_TEST_DATABASE_URL set, a fresh
// PostgreSQL schema per store, dropped again when the store closes (the whole suite runs on both).
import { randomBytes } from "node:crypto";
import type { Migration } from "kysely/migration";
import pg from "pg";
import { openStore, type Store } from "../src/store/store.ts";

export const TEST_DATABASE_URL = process.env.PAYCALL_TEST_DATABASE_URL || undefined;

export interface TestDatabase {
  /** Environment for loadConfig: DATABASE_URL and DATABASE_SCHEMA on PostgreSQL, nothing on SQLite. */
  env: Record<string, string>;
  drop: () => Promise<void>;
}

export function testDatabase(): TestDatabase {
  if (!TEST_DATABASE_URL) return { env: {}, drop: async () => {} };
  const schema = `t_${randomBytes(6).toString("hex")}`;
  return {
    env: { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema },
    drop: () => dropSchema(schema),
  };
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/** A store of its own for one test: in-memory SQLite, or a fresh PostgreSQL schema. */
export async function openTestStore(migrations: Record<string, Migration> = {}): Promise<Store> {
  if (!TEST_DATABASE_URL) return openStore({ kind: "sqlite", file: ":memory:" }, migrations);
  const database = testDatabase();
  const store = await openStore(
    { kind: "postgres", url: TEST_DATABASE_URL, schema: database.env.DATABASE_SCHEMA, poolSize: 4 },
    migrations,
  );
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await database.drop();
  };
  return store;
}
