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

export function nodeSqliteDialect(db: DatabaseSync): SqliteDialect {
  const adapted: SqliteDatabase = {
    close: () => db.close(),
    prepare: (sql) => adaptStatement(db.prepare(sql)),
  };
  return new SqliteDialect({ database: adapted });
}
