import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** A repository works on the database it is given: the store's, or a transaction's. */
export abstract class Repository {
  protected readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }
}
