// Preload (node --import) for a paycall bench child: counts the SQL statements it runs, by their first word
// (node:sqlite's prepared statements and pg's client queries), and on SIGUSR2 writes the running totals to the
// file BENCH_STATEMENTS_FILE names. The paid-path bench reads them before and after a run.
import fs from "node:fs";
import { DatabaseSync } from "node:sqlite";

const file = process.env.BENCH_STATEMENTS_FILE;
if (!file) throw new Error("BENCH_STATEMENTS_FILE is required");
const counts: Record<string, number> = {};

function count(text: unknown): void {
  const sql = typeof text === "string" ? text : (text as { text?: unknown } | undefined)?.text;
  if (typeof sql !== "string") return;
  const kind = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? "other";
  counts[kind] = (counts[kind] ?? 0) + 1;
}

// Every statement of a node:sqlite database shares one prototype: reached through a statement of a scratch one.
const probe = new DatabaseSync(":memory:");
const statementPrototype = Object.getPrototypeOf(probe.prepare("select 1"));
probe.close();
for (const method of ["run", "all", "get", "iterate"] as const) {
  const original = statementPrototype[method];
  statementPrototype[method] = function (this: { sourceSQL: string }, ...args: unknown[]) {
    count(this.sourceSQL);
    return original.apply(this, args);
  };
}
const originalExec = DatabaseSync.prototype.exec;
DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string) {
  count(sql);
  return originalExec.call(this, sql);
};

if (process.env.DATABASE_URL) {
  const { default: pg } = await import("pg");
  const originalQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    count(args[0]);
    return originalQuery.apply(this, args);
  } as typeof pg.Client.prototype.query;
}

process.on("SIGUSR2", () => fs.writeFileSync(file, JSON.stringify(counts)));
