// One process for several test files (test/run-tests.ts starts it with `node --test --test-isolation=none`): the
// files' common imports (the service, viem, the families) load once instead of once per file. Each file is
// imported inside a suite of its own, so its top-level before/after/beforeEach hooks apply to its own tests only,
// as they do when the file has a process to itself.
import { describe } from "node:test";
import { pathToFileURL } from "node:url";

const files = (process.env.PAYCALL_TEST_FILES ?? "").split("\n").filter(Boolean);
if (files.length === 0) throw new Error("PAYCALL_TEST_FILES names no test file");

for (const file of files) {
  describe(file, async () => {
    await import(pathToFileURL(file).href);
  });
}
