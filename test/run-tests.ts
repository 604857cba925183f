// Runs test files in a few processes side by side, most files sharing a process (test/shared-process.ts): a
// process loads the service and its dependencies once, which is most of a small file's CPU. Files that change
// the process for everyone (test/test-isolation.ts) get a process each, first, as they are the long ones (they
// start services and CLIs as processes). The shared processes then ask for one file at a time, costliest first,
// so they finish together. Each process's report is printed whole when it ends, then the totals; the exit status
// is 1 when any test failed or any process ended badly.
//   node test/run-tests.ts [--concurrency=N] [file ...]   (no file: every test file of the suite)
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { testFiles } from "./postgres-selection.ts";
import { needsOwnProcess } from "./test-isolation.ts";

/** The test in a shared process that holds the files it asks for (test/shared-process.ts); not counted. */
export const LANE_TEST = "test files asked of the runner";
const COUNTS = ["tests", "suites", "pass", "fail", "cancelled", "skipped", "todo"] as const;
const SHARED_PROCESS = path.join(import.meta.dirname, "shared-process.ts");

type Counts = Record<(typeof COUNTS)[number], number>;

interface Outcome {
  ok: boolean;
  counts: Counts;
}

/**
 * The files that need a process each, and the others, each list costliest first: the cross-cutting files in
 * test/ (whole services, clusters and CLIs as processes) before the rest, then the largest first.
 */
export function placeFiles(files: string[]): { alone: string[]; shared: string[] } {
  const cost = (file: string) => (file.startsWith("test/") ? 1e9 : 0) + fs.statSync(file).size;
  const bySize = files
    .map((file) => ({ file, cost: cost(file) }))
    .sort((a, b) => b.cost - a.cost)
    .map(({ file }) => file);
  return {
    alone: bySize.filter((file) => needsOwnProcess(file)),
    shared: bySize.filter((file) => !needsOwnProcess(file)),
  };
}

/** A test process: `alone` names its one file; otherwise it asks `shared` for files until none is left. */
function runProcess(
  env: NodeJS.ProcessEnv,
  work: { alone: string } | { shared: string[] },
): Promise<Outcome> {
  const started = performance.now();
  // Under `node --test` (this runner's own test), a child would otherwise report in the runner's binary format.
  const { NODE_TEST_CONTEXT: _, ...ownEnv } = env;
  const child = spawn(
    process.execPath,
    ["--test", "--test-isolation=none", "--test-reporter=spec", "--test-timeout=180000", SHARED_PROCESS],
    {
      stdio: ["ignore", "pipe", "pipe", ...("shared" in work ? ["ipc" as const] : [])],
      env: { ...ownEnv, PAYCALL_TEST_FILES: "alone" in work ? work.alone : "" },
    },
  );
  const taken: string[] = [];
  if ("shared" in work) {
    child.on("message", () => {
      const file = work.shared.shift() ?? null;
      if (file) taken.push(file);
      child.send({ file });
    });
  }
  const output: Buffer[] = [];
  child.stdout!.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    const finish = (status: number, why: string) => {
      const report = Buffer.concat(output).toString();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const what = "alone" in work ? work.alone : `${taken.length} files in one process`;
      process.stdout.write(`\n----- ${what} (${why}, ${seconds} s) -----\n${report}`);
      const counts = countsOf(report);
      resolve({ ok: status === 0 && counts.fail === 0 && counts.cancelled === 0, counts });
    };
    child.on("error", (error) => finish(1, `could not start: ${error.message}`));
    child.on("close", (code, signal) => finish(code ?? 1, signal ? `killed by ${signal}` : `exit ${code}`));
  });
}

/** The spec reporter's closing lines ("ℹ pass 12"), without the test that holds a shared process's files. */
function countsOf(report: string): Counts {
  const counts = Object.fromEntries(COUNTS.map((name) => [name, 0])) as Counts;
  for (const name of COUNTS) {
    for (const match of report.matchAll(new RegExp(`^ℹ ${name} (\\d+)$`, "gm")))
      counts[name] += Number(match[1]);
  }
  const lane = new RegExp(`^(✔|✖) ${LANE_TEST} `, "m").exec(report);
  if (lane) {
    counts.tests -= 1;
    if (lane[1] === "✔") counts.pass -= 1;
    else if (counts.fail > 0) counts.fail -= 1;
  }
  return counts;
}

/** Runs the files, prints every report and the totals; true when everything passed. */
export async function runTestFiles(
  files: string[],
  { concurrency = 2, env = process.env }: { concurrency?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<boolean> {
  const { alone, shared } = placeFiles(files);
  const outcomes: Outcome[] = [];
  const lane = async () => {
    for (let file = alone.shift(); file; file = alone.shift())
      outcomes.push(await runProcess(env, { alone: file }));
    // A process that dies leaves the files it did not take to a new one.
    while (shared.length > 0) outcomes.push(await runProcess(env, { shared }));
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const total = Object.fromEntries(
    COUNTS.map((name) => [name, outcomes.reduce((sum, outcome) => sum + outcome.counts[name], 0)]),
  ) as Counts;
  const failed = outcomes.filter((outcome) => !outcome.ok).length;
  process.stdout.write(
    `\n${files.length} files in ${outcomes.length} processes, ${failed} failed; ` +
      `${COUNTS.map((name) => `${name} ${total[name]}`).join(", ")}\n`,
  );
  return failed === 0;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const concurrency = Number(args.find((arg) => arg.startsWith("--concurrency="))?.split("=")[1] ?? 2);
  const named = args.filter((arg) => !arg.startsWith("--"));
  const root = path.resolve(import.meta.dirname, "..");
  const ok = await runTestFiles(named.length > 0 ? named : testFiles(root), { concurrency });
  process.exitCode = ok ? 0 : 1;
}
