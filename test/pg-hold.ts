// Stops a node's process at one exact write: a trigger on the table makes the write wait for a lock this test
// holds, so the test knows when the node has reached it (everything before it done, nothing after it) and can kill
// the node there. Released, a held write fails instead of landing (its node is gone by then), and the trigger is
// dropped. PostgreSQL only: the schema is the store's (DATABASE_SCHEMA).
import { randomInt } from "node:crypto";
import pg from "pg";

/** The first key of every hold's advisory lock; the second is the hold's own. */
const HOLD_LOCKS = 402_7_0001;

export interface WriteHold {
  /** Resolves once a write is waiting in the hold. */
  reached: (timeoutMs?: number) => Promise<void>;
  /** Lets every held write fail, and drops the trigger. */
  release: () => Promise<void>;
}

/**
 * Holds each `event` on `table` of `schema` whose new row meets `when` (SQL over NEW), until `release`.
 * The held write's transaction keeps what it locked meanwhile.
 */
export async function holdWrites(
  databaseUrl: string,
  schema: string,
  table: string,
  event: "insert" | "update",
  when: string,
): Promise<WriteHold> {
  const key = randomInt(1, 2 ** 31 - 1);
  const name = `test_hold_${key}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`set search_path to "${schema}"`);
  await client.query("select pg_advisory_lock($1, $2)", [HOLD_LOCKS, key]);
  await client.query(`create function ${name}() returns trigger language plpgsql as $$
    begin
      perform pg_advisory_xact_lock_shared(${HOLD_LOCKS}, ${key});
      raise exception 'write held by a test whose node was stopped';
    end $$`);
  await client.query(
    `create trigger ${name} before ${event} on "${table}" for each row when (${when}) execute function ${name}()`,
  );
  return {
    async reached(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const waiting = await client.query(
          "select 1 from pg_locks where locktype = 'advisory' and classid = $1 and objid = $2 and not granted",
          [HOLD_LOCKS, key],
        );
        if (waiting.rowCount) return;
        if (Date.now() > deadline) throw new Error(`no ${event} on ${table} reached the hold`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async release() {
      await client.query("select pg_advisory_unlock($1, $2)", [HOLD_LOCKS, key]);
      await client.query(`drop trigger ${name} on "${table}"`);
      await client.query(`drop function ${name}()`);
      await client.end();
    },
  };
}
