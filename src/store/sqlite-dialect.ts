// Kysely's SqliteDialect over the built-in node:sqlite, so no native addon has to be built.
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";

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

export function nodeSqliteDialect(db: DatabaseSync): SqliteDialect {
  // Kysely prepares every query afresh; preparing costs more than running a point lookup, so keep them.
  // Kysely runs one query at a time on this connection, so a cached statement is never used twice at once.
  const statements = new Map<string, SqliteStatement>();
  const adapted: SqliteDatabase = {
    close: () => db.close(),
    prepare: (sql) => {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE)
          statements.delete(statements.keys().next().value as string);
        statement = adaptStatement(db.prepare(sql));
        statements.set(sql, statement);
      }
      return statement;
    },
  };
  return new SqliteDialect({ database: adapted });
}
