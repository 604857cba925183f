// npm run faults: every fault scenario in bench/faults/*.scenario.ts (each default-exports a FaultScenario), one
// after another, and a table of what paid calls got. FAULTS=postgres,disk runs the scenarios whose name or
// file contains one of the words. Each scenario starts the paycall processes it faults, on a database or disk
// of its own (a restart or a full disk is not something to do to a service someone else runs).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { emptyRow } from "./faults/cluster.ts";
import type { FaultRow, FaultScenario } from "./faults/row.ts";

const DIR = path.join(import.meta.dirname, "faults");
const wanted = (process.env.FAULTS ?? "")
  .split(",")
  .map((w) => w.trim().toLowerCase())
  .filter(Boolean);

const files = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith(".scenario.ts"))
  .sort();
const scenarios: Array<{ file: string; scenario: FaultScenario }> = [];
for (const file of files) {
  const scenario = ((await import(pathToFileURL(path.join(DIR, file)).href)) as { default: FaultScenario })
    .default;
  const names = `${file} ${scenario.name}`.toLowerCase();
  if (wanted.length === 0 || wanted.some((w) => names.includes(w))) scenarios.push({ file, scenario });
}
if (scenarios.length === 0) {
  console.error(`no scenario matches FAULTS=${process.env.FAULTS} among ${files.join(", ")}`);
  process.exit(1);
}

const rows: FaultRow[] = [];
for (const { file, scenario } of scenarios) {
  console.error(`running ${scenario.name} (${file})…`);
  try {
    rows.push(await scenario.run());
  } catch (error) {
    rows.push(emptyRow(scenario.name, `scenario failed: ${String(error).slice(0, 300)}`));
  }
}
console.log(table(rows));

function table(rows: FaultRow[]): string {
  const header = [
    "fault",
    "paid calls",
    "delivered",
    "charged",
    "refused (503)",
    "worst latency",
    "recovery",
    "notes",
  ];
  const lines = rows.map((r) => [
    r.fault,
    String(r.attempted),
    String(r.delivered),
    String(r.charged),
    String(r.refused),
    `${r.worstLatencyMs} ms`,
    r.recoveryMs === null ? "—" : `${(r.recoveryMs / 1000).toFixed(1)} s`,
    r.notes ?? "",
  ]);
  const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [row(header), row(header.map(() => "---")), ...lines.map(row)].join("\n");
}
