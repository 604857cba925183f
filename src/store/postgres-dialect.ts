// PostgreSQL for several nodes: a pg pool per process, an optional schema of its own, and a session
// advisory lock so that nodes starting together run the migrations once.
import {
  type CompiledQuery,
  type Kysely,
  PostgresAdapter,
  PostgresDialect,
  type QueryResult,
  sql,
} from "kysely";
import type { QueryRunner } from "./prepared.ts";

// The driver (about 36 modules) is imported when a PostgreSQL store is opened; SQLite servers never load it.
let driver: Promise<typeof import("pg").default> | undefined;
function loadDriver() {
  driver ??= import("pg").then(({ default: pg }) => {
    // Counts and sums come back as strings by default (int8/numeric); everything paycall counts fits a double.
    pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
    return pg;
  });
  return driver;
}

const MIGRATION_LOCK_KEY = 402_1_0001;

interface PostgresOptions {
  url: string;
  schema?: string;
  poolSize: number;
}

/** How long a new connection may take: a server that does not answer must not hold a paid call. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * Kysely's dialect, and the same pool as a runner of compiled statements: the paid path's two statements (the
 * claim, the outcome) go to the pool directly, without Kysely's connection steps and result mapping (about a
 * fifth of what a paid call's statements cost the service; the statements are compiled by Kysely all the same).
 */
interface PostgresStore {
  dialect: PostgresDialect;
  direct: QueryRunner;
}

/** `connectionLost` hears of every client that lost its server, idle in the pool or checked out. */
export async function postgresDialect(
  options: PostgresOptions,
  connectionLost: (error: Error) => void = () => {},
): Promise<PostgresStore> {
  const pg = await loadDriver();
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    // Idle connections stay open: closing them after 10 s (pg's default) arms a timer on every release, a cost
    // on each paid call, to save a handful of connections the pool's size already bounds.
    idleTimeoutMillis: 0,
    // …without keeping a command that forgot to close its store from exiting.
    allowExitOnIdle: true,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // A client losing its server (a restart, a network cut) must not crash the process. The pool listens to its
  // idle clients only: a client checked out when its connection ends emits 'error' with no listener, which would
  // throw; each client gets a listener of its own for its whole life. The query under way fails on its own,
  // and the pool drops a client that is no longer queryable when it is released.
  pool.on("error", connectionLost);
  pool.on("connect", (client) => client.on("error", connectionLost));
  const direct: QueryRunner = {
    async executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> {
      const result = await pool.query(query.sql, query.parameters as unknown[]);
      return {
        rows: result.rows as R[],
        ...(result.rowCount === null ? {} : { numAffectedRows: BigInt(result.rowCount) }),
      };
    },
  };
  return { dialect: new PostgresDialect({ pool }), direct };
}

export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Runs `work` holding the cluster-wide migration lock, after creating the schema if it is missing. */
export async function withMigrationLock<T>(
  db: Kysely<unknown>,
  schema: string | undefined,
  work: () => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
    try {
      if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(conn);
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(conn);
    }
  });
}
