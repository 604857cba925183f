import type { Kysely } from "kysely";
import { isPostgres } from "./postgres-dialect.ts";
import type { Database } from "./schema.ts";

/** A repository works on the database it is given: the store's, or a transaction's. */
export abstract class Repository {
  protected readonly db: Kysely<Database>;
  protected readonly postgres: boolean;
  constructor(db: Kysely<Database>) {
    this.db = db;
    this.postgres = isPostgres(db as unknown as Kysely<unknown>);
  }
}
