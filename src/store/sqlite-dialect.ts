// Kysely's SqliteDialect over the built-in node:sqlite, so no native addon has to be built.
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { type CompiledQuery, type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";

type Param = null | number | bigint | string | Uint8Array;

function adaptStatement(statement: StatementSync): SqliteStatement {
  return {
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...(parameters as Param[])) as unknown[],
    run: (parameters) => {
      const result = statement.run(...(parameters as Param[]));
      return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
    },
    iterate: (parameters) => statement.iterate(...(parameters as Param[])) as IterableIterator<unknown>,
  };
}

export function openSqlite(file: string): DatabaseSync {
  const db = new DatabaseSync(file);
  db.exec(
    "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;",
  );
  return db;
}

const STATEMENT_CACHE_SIZE = 256;

/**
 * The statements of one connection, prepared once: Kysely prepares every query afresh, and preparing costs more
 * than running a point lookup.
 */
function statementCache(db: DatabaseSync): (sql: string) => SqliteStatement {
  const statements = new Map<string, SqliteStatement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE_SIZE)
        statements.delete(statements.keys().next().value as string);
      statement = adaptStatement(db.prepare(sql));
      statements.set(sql, statement);
    }
    return statement;
  };
}

/**
 * The store's SQLite connection run synchronously, for a transaction of a few statements that must not pay
 * for Kysely's connection and transaction steps (a paid call's claim). node:sqlite runs each statement to its
 * end before returning, so a transaction made without awaiting cannot interleave with any other query.
 */
export interface SyncSqlite {
  /** True while a transaction is open on the connection (a Kysely one, waiting between its statements). */
  readonly inTransaction: boolean;
  /** The rows a statement returns (its RETURNING clause). */
  rows<R>(query: CompiledQuery<R>): R[];
  /** How many rows a statement changed. */
  changes(query: CompiledQuery): number;
  /**
   * `work` between BEGIN and COMMIT (ROLLBACK when it throws); never called while `inTransaction`. `immediate`
   * takes the write lock at BEGIN: a transaction that reads before it writes then never meets another process's
   * write in between (which SQLite refuses at once, whatever the busy timeout).
   */
  transaction<T>(work: () => T, immediate?: boolean): T;
}

interface NodeSqlite {
  dialect: SqliteDialect;
  sync: SyncSqlite;
}

export function nodeSqliteDialect(db: DatabaseSync): NodeSqlite {
  // Kysely runs one query at a time on this connection, so a cached statement is never used twice at once.
  const prepare = statementCache(db);
  // Kysely opens its transactions with a deferred BEGIN; one that reads before it writes then fails at once
  // with "database is locked" when another connection (the CLI beside a running service) wrote in between,
  // whatever the busy timeout. BEGIN IMMEDIATE takes the write lock first, so it waits its turn instead.
  const adapted: SqliteDatabase = {
    close: () => db.close(),
    prepare: (sql) => prepare(sql === "begin" ? "begin immediate" : sql),
  };
  const parameters = (query: CompiledQuery) => query.parameters as readonly unknown[];
  const sync: SyncSqlite = {
    get inTransaction() {
      return db.isTransaction;
    },
    rows: <R>(query: CompiledQuery<R>) => prepare(query.sql).all(parameters(query)) as R[],
    changes: (query) => Number(prepare(query.sql).run(parameters(query)).changes),
    transaction(work, immediate = false) {
      prepare(immediate ? "begin immediate" : "begin").run([]);
      try {
        const result = work();
        prepare("commit").run([]);
        return result;
      } catch (error) {
        if (db.isTransaction) prepare("rollback").run([]);
        throw error;
      }
    },
  };
  return { dialect: new SqliteDialect({ database: adapted }), sync };
}
