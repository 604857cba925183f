// `paycall ingest <kind> <file>`: validates every record of a JSON or CSV file and upserts them by id in one
// transaction. Any bad record fails the whole import, listing every problem as <file>:<line>: <field>: <problem>.
import type { z } from "zod";
import type { Store } from "../../../store/store.ts";
import { bumpDataVersion } from "./data-version.ts";
import { FileProblem, readRows } from "./read-rows.ts";
import { fieldsOf, INGEST_KINDS, KINDS, type RowProblem } from "./records.ts";
import { type MountainKysely, mountainDb } from "./schema.ts";

export class IngestError extends Error {
  readonly problems: string[];
  constructor(file: string, problems: string[]) {
    super(
      `${file}: nothing was imported; ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${problems.join("\n")}`,
    );
    this.name = "IngestError";
    this.problems = problems;
  }
}

interface IngestResult {
  kind: string;
  rows: number;
  inserted: number;
  updated: number;
}

/** Thrown inside the transaction so it rolls back. */
class Rejected extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super("rejected");
    this.problems = problems;
  }
}

function describeIssue(issue: z.core.$ZodIssue, allowed: string[]): { field: string; problem: string } {
  if (issue.code === "unrecognized_keys")
    return { field: issue.keys.join(", "), problem: `unknown field; the fields are ${allowed.join(", ")}` };
  return { field: issue.path.map(String).join(".") || "(record)", problem: issue.message };
}

export async function ingest(store: Store, kind: string, file: string): Promise<IngestResult> {
  const spec = KINDS[kind];
  if (!spec)
    throw new IngestError(file, [
      `${file}: kind: unknown kind "${kind}"; the kinds are ${INGEST_KINDS.join(", ")}`,
    ]);
  const allowed = fieldsOf(kind);

  let rows: ReturnType<typeof readRows>;
  try {
    rows = readRows(file);
  } catch (error) {
    if (error instanceof FileProblem)
      throw new IngestError(file, [`${file}:${error.line}: ${error.field}: ${error.message}`]);
    throw error;
  }

  const problems: string[] = [];
  const unknownColumns = rows.columns.filter((c) => !allowed.includes(c));
  for (const column of unknownColumns)
    problems.push(`${file}:1: ${column}: unknown column; the fields are ${allowed.join(", ")}`);

  const records: unknown[] = [];
  const lines: number[] = [];
  const seen = new Map<string, number>();
  for (const row of rows.rows) {
    const values = Object.fromEntries(
      Object.entries(row.values).filter(([k]) => !unknownColumns.includes(k)),
    );
    const result = spec.schema.safeParse(values);
    if (!result.success) {
      for (const issue of result.error.issues) {
        const { field, problem } = describeIssue(issue, allowed);
        problems.push(`${file}:${row.line}: ${field}: ${problem}`);
      }
      continue;
    }
    const id = (result.data as { id: string }).id;
    const first = seen.get(id);
    if (first !== undefined) {
      problems.push(`${file}:${row.line}: id: "${id}" appears twice (first on line ${first})`);
      continue;
    }
    seen.set(id, row.line);
    records.push(result.data);
    lines.push(row.line);
  }
  if (rows.rows.length === 0) problems.push(`${file}:1: (file): holds no records`);

  const updatedAt = new Date().toISOString();
  let counts: { inserted: number; updated: number };
  try {
    counts = await mountainDb(store)
      .transaction()
      .execute(async (trx) => {
        const db = trx as unknown as MountainKysely;
        // Cross-row and reference checks run on every valid record, so one run lists all problems.
        const cross: RowProblem[] = spec.crossCheck ? await spec.crossCheck(records, db) : [];
        for (const p of cross) problems.push(`${file}:${lines[p.index]}: ${p.field}: ${p.problem}`);
        if (problems.length > 0) throw new Rejected(problems);
        return upsert(
          db,
          spec.table,
          records.map((r) => spec.toRow(r, updatedAt)),
          async () => {
            await spec.afterUpsert?.(records, db);
          },
        );
      });
  } catch (error) {
    if (error instanceof Rejected) {
      const ordered = [...error.problems].sort((a, b) => lineOf(a) - lineOf(b));
      throw new IngestError(file, ordered);
    }
    throw error;
  }
  await bumpDataVersion(store);
  return { kind, rows: records.length, ...counts };
}

function lineOf(problem: string): number {
  return Number(problem.match(/:(\d+): /)?.[1] ?? 0);
}

type UpdateSet = (eb: { ref: (c: string) => unknown }) => Record<string, unknown>;

async function upsert(
  db: MountainKysely,
  table: keyof import("./schema.ts").MountainDb,
  rows: Array<Record<string, unknown>>,
  after: () => Promise<void>,
): Promise<{ inserted: number; updated: number }> {
  // biome-ignore lint/suspicious/noExplicitAny: the table is chosen at run time; rows come from the kind's toRow
  const anyDb = db as any;
  const ids = rows.map((r) => String(r.id));
  const existing = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const found: Array<{ id: string }> = await anyDb
      .selectFrom(table)
      .select("id")
      .where("id", "in", ids.slice(i, i + 500))
      .execute();
    for (const row of found) existing.add(row.id);
  }
  // Batches of rows; on an existing id every other column takes the new value (excluded.<column>).
  const columns = Object.keys(rows[0] ?? {}).filter((c) => c !== "id");
  for (let i = 0; i < rows.length; i += 100) {
    await anyDb
      .insertInto(table)
      .values(rows.slice(i, i + 100))
      .onConflict((oc: { column: (c: string) => { doUpdateSet: (set: UpdateSet) => unknown } }) =>
        oc
          .column("id")
          .doUpdateSet((eb: { ref: (c: string) => unknown }) =>
            Object.fromEntries(columns.map((c) => [c, eb.ref(`excluded.${c}`)])),
          ),
      )
      .execute();
  }
  await after();
  return { inserted: rows.length - existing.size, updated: existing.size };
}
