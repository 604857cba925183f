// One process for many test files (test/run-tests.ts starts it with `node --test --test-isolation=none`): the
// files' common imports (the service, viem, the families) load once instead of once per file. Each file is
// imported inside a suite of its own, so its top-level before/after/beforeEach hooks apply to its own tests only,
// as they do when the file has a process to itself. The files are named in PAYCALL_TEST_FILES, or, with an IPC
// channel to the runner, asked for one at a time until the runner has none left: the processes running side by
// side then finish together.
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { LANE_TEST } from "./run-tests.ts";

function runFile(file: string): Promise<void> {
  return describe(file, async () => {
    await import(pathToFileURL(file).href);
  });
}

function nextFile(): Promise<string | null> {
  return new Promise((resolve) => {
    process.once("message", (answer: { file: string | null }) => resolve(answer.file));
    process.send!("next");
  });
}

const named = (process.env.PAYCALL_TEST_FILES ?? "").split("\n").filter(Boolean);
if (named.length > 0) {
  for (const file of named) runFile(file);
} else if (process.send) {
  // Each file keeps the run's timeout; this test, which lasts as long as the files it takes, has none (a timeout
  // of Infinity would not do: it cancels the test).
  test(LANE_TEST, { timeout: 2 ** 31 - 1 }, async () => {
    for (let file = await nextFile(); file !== null; file = await nextFile()) await runFile(file);
    process.disconnect();
  });
} else {
  throw new Error("no test files: name them in PAYCALL_TEST_FILES or run this under test/run-tests.ts");
}
