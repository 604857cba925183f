// `npm test`: the SQLite run, the PostgreSQL run and the deploy run at once. Test files spend more than half
// their time waiting (timers, child processes, loopback servers), so the three together finish in little more
// than the longest alone. Each suite's output is printed whole when it ends, then a summary; the exit status is
// 1 when any suite failed.
import { spawn } from "node:child_process";

const SUITES = ["test:sqlite", "test:postgres", "test:deploy"];

interface Outcome {
  suite: string;
  status: number;
  seconds: number;
}

function runSuite(suite: string): Promise<Outcome> {
  const started = performance.now();
  const child = spawn("npm", ["run", "--silent", suite], { stdio: ["ignore", "pipe", "pipe"] });
  const output: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      const seconds = Math.round((performance.now() - started) / 1000);
      process.stdout.write(`\n===== npm run ${suite} (exit ${status}, ${seconds} s) =====\n`);
      process.stdout.write(Buffer.concat(output));
      resolve({ suite, status, seconds });
    });
    child.on("error", (error) => {
      process.stdout.write(`\n===== npm run ${suite}: could not start: ${error.message} =====\n`);
      resolve({ suite, status: 1, seconds: 0 });
    });
  });
}

const outcomes = await Promise.all(SUITES.map(runSuite));
process.stdout.write("\n");
for (const { suite, status, seconds } of outcomes) {
  process.stdout.write(`${status === 0 ? "ok  " : "FAIL"} npm run ${suite} (${seconds} s)\n`);
}
// exitCode, not exit(): a pipe takes stdout's writes asynchronously, and exit() would cut the output short.
process.exitCode = outcomes.every((outcome) => outcome.status === 0) ? 0 : 1;
