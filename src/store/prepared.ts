// A statement compiled once and run with new values each time (Kysely's "execute compiled queries" recipe).
// Building and compiling a query with Kysely's builder costs about 35 µs of CPU (bench/paid-path.ts profile),
// as much as half of what a PostgreSQL point query costs its client; the paid path runs three statements.
// So those statements are built once with a marked placeholder for each value, and a run only puts the values
// in. The builder still type-checks the statement.
import type { Compilable, CompiledQuery, QueryResult } from "kysely";

const MARK = "\u0000prepared:";

/** Anything that runs a compiled query: the store's Kysely, or a transaction of it. */
export interface QueryRunner {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

type Slot = { value: string } | { constant: unknown };

export class Prepared<V extends Record<string, unknown>, R> {
  private readonly build: (values: V) => Compilable<R>;
  private compiled: { query: CompiledQuery<R>; slots: Slot[] } | undefined;

  /** `build` gets placeholders in place of the values and must bind each as a parameter. */
  constructor(build: (values: V) => Compilable<R>) {
    this.build = build;
  }

  async run(db: QueryRunner, values: V): Promise<QueryResult<R>> {
    return db.executeQuery(this.with(values));
  }

  /** The statement with `values` in place, to run on a runner of one's own (the SQLite claim runs it synchronously). */
  with(values: V): CompiledQuery<R> {
    if (!this.compiled) {
      const compiled = this.compile();
      // A value given but never bound (the builder read the placeholders' keys, say) is a statement wrong at every run.
      const bound = new Set(compiled.slots.map((slot) => ("value" in slot ? slot.value : "")));
      const unbound = Object.keys(values).filter((name) => !bound.has(name));
      if (unbound.length > 0) throw new Error(`prepared statement: never bound: ${unbound.join(", ")}`);
      this.compiled = compiled;
    }
    const { query, slots } = this.compiled;
    const parameters = slots.map((slot) => {
      if ("constant" in slot) return slot.constant;
      const value = values[slot.value];
      if (value === undefined) throw new Error(`prepared statement: no value for "${slot.value}"`);
      return value;
    });
    return { ...query, parameters };
  }

  private compile(): { query: CompiledQuery<R>; slots: Slot[] } {
    const named = new Set<string>();
    const placeholders = new Proxy({} as V, {
      get: (_target, name) => {
        named.add(`${MARK}${String(name)}`);
        return `${MARK}${String(name)}`;
      },
    });
    const query = this.build(placeholders).compile();
    const slots = query.parameters.map((parameter): Slot => {
      if (typeof parameter !== "string" || !parameter.includes(MARK)) return { constant: parameter };
      // A placeholder the builder changed (concatenated, escaped) would bind a wrong value at every run.
      if (!named.has(parameter)) throw new Error(`prepared statement: a value was altered: ${query.sql}`);
      return { value: parameter.slice(MARK.length) };
    });
    if (query.sql.includes(MARK)) throw new Error(`prepared statement: a value was inlined: ${query.sql}`);
    return { query, slots };
  }
}
