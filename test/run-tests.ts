// Runs test files in a few processes at a time, most of them several files to a process (test/shared-process.ts):
// each process loads the service and its dependencies once, which is most of a small file's CPU. Files that
// change the process for everyone (test/test-isolation.ts) run alone. The heaviest files start first so the run
// does not end on one long file. Each process's report is printed whole when it ends, then the totals; the exit
// status is 1 when any test failed or any process ended badly.
//   node test/run-tests.ts [--concurrency=N] [file ...]   (no file: every test file of the suite)
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { testFiles } from "./postgres-selection.ts";
import { needsOwnProcess } from "./test-isolation.ts";

const MAX_FILES_PER_PROCESS = 12;
/** Below this many bytes of test files, a process takes more files (a small run needs few processes). */
const MIN_BATCH_BYTES = 60_000;
/** Batches per concurrent process: more means a shorter tail, fewer means fewer repeated imports. */
const BATCHES_PER_LANE = 6;
const COUNTS = ["tests", "suites", "pass", "fail", "cancelled", "skipped", "todo"] as const;

type Counts = Record<(typeof COUNTS)[number], number>;

interface Batch {
  files: string[];
  weight: number;
}

interface Outcome {
  ok: boolean;
  counts: Counts;
}

/** Files in batches, heaviest batch first; a file's size stands in for its cost. */
export function batches(files: string[], concurrency: number, root = "."): Batch[] {
  const sized = files
    .map((file) => ({ file, weight: fs.statSync(path.resolve(root, file)).size }))
    .sort((a, b) => b.weight - a.weight);
  const alone: Batch[] = [];
  const shared = sized.filter(({ file, weight }) => {
    if (!needsOwnProcess(path.resolve(root, file))) return true;
    alone.push({ files: [file], weight });
    return false;
  });
  const total = shared.reduce((sum, { weight }) => sum + weight, 0);
  const target = Math.max(total / (concurrency * BATCHES_PER_LANE), MIN_BATCH_BYTES);
  const together: Batch[] = [];
  let current: Batch = { files: [], weight: 0 };
  for (const { file, weight } of shared) {
    current.files.push(file);
    current.weight += weight;
    if (current.weight >= target || current.files.length >= MAX_FILES_PER_PROCESS) {
      together.push(current);
      current = { files: [], weight: 0 };
    }
  }
  if (current.files.length > 0) together.push(current);
  return [...alone, ...together].sort((a, b) => b.weight - a.weight);
}

function runBatch(batch: Batch, env: NodeJS.ProcessEnv): Promise<Outcome> {
  // Under `node --test` (this runner's own test), a child would otherwise report in the runner's binary format.
  const { NODE_TEST_CONTEXT: _, ...ownEnv } = env;
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      "--test",
      "--test-isolation=none",
      "--test-reporter=spec",
      "--test-timeout=180000",
      path.join(import.meta.dirname, "shared-process.ts"),
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...ownEnv, PAYCALL_TEST_FILES: batch.files.join("\n") } },
  );
  const output: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    const finish = (status: number, why: string) => {
      const text = Buffer.concat(output).toString();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n----- ${batch.files.join(", ")} (${why}, ${seconds} s) -----\n${text}`);
      const counts = countsOf(text);
      resolve({ ok: status === 0 && counts.fail === 0 && counts.cancelled === 0, counts });
    };
    child.on("error", (error) => finish(1, `could not start: ${error.message}`));
    child.on("close", (code, signal) => finish(code ?? 1, signal ? `killed by ${signal}` : `exit ${code}`));
  });
}

/** The spec reporter's closing lines ("ℹ pass 12"). */
function countsOf(report: string): Counts {
  const counts = Object.fromEntries(COUNTS.map((name) => [name, 0])) as Counts;
  for (const name of COUNTS) {
    for (const match of report.matchAll(new RegExp(`^ℹ ${name} (\\d+)$`, "gm")))
      counts[name] += Number(match[1]);
  }
  return counts;
}

/** Runs the files, prints every report and the totals; true when everything passed. */
export async function runTestFiles(
  files: string[],
  { concurrency = 2, env = process.env }: { concurrency?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<boolean> {
  const queue = batches(files, concurrency);
  const outcomes: Outcome[] = [];
  const lane = async () => {
    for (let batch = queue.shift(); batch; batch = queue.shift()) outcomes.push(await runBatch(batch, env));
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, lane));
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
  const ok = await runTestFiles(
    named.length > 0 ? named : testFiles(path.resolve(import.meta.dirname, "..")),
    {
      concurrency,
    },
  );
  process.exitCode = ok ? 0 : 1;
}
