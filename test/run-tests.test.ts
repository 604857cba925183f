// The test runner (test/run-tests.ts): files sharing a process keep their hooks to themselves, every test is
// counted, and one failure fails the run.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { OWN_PROCESS } from "./test-isolation.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-run-tests-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A test file whose top-level hooks count what they saw; its tests fail if another file's hooks ran for them. */
function hookedFile(name: string, extraTest = ""): string {
  const file = path.join(dir, `${name}.test.ts`);
  fs.writeFileSync(
    file,
    `import assert from "node:assert/strict";
import { before, beforeEach, test } from "node:test";
const seen = { before: 0, beforeEach: 0 };
before(() => { seen.before++; });
beforeEach(() => { seen.beforeEach++; });
test("${name} one", () => assert.deepEqual(seen, { before: 1, beforeEach: 1 }));
test("${name} two", () => assert.deepEqual(seen, { before: 1, beforeEach: 2 }));
${extraTest}`,
  );
  return file;
}

function run(files: string[]) {
  const result = spawnSync(
    process.execPath,
    [path.join(import.meta.dirname, "run-tests.ts"), "--concurrency=1", ...files],
    {
      encoding: "utf8",
    },
  );
  return { status: result.status, output: result.stdout + result.stderr };
}

test("files sharing a process: each file's hooks run for its own tests only, every test is counted", () => {
  const files = ["a", "b", "c"].map((name) => hookedFile(name));
  const { status, output } = run(files);
  assert.equal(status, 0, output);
  assert.match(output, /3 files in 1 processes, 0 failed; tests 6, suites 3, pass 6, fail 0/);
});

test("a file that changes the process for everyone runs in a process of its own", () => {
  const own = hookedFile("own", `test("own env", () => { process.env.PAYCALL_RUN_TESTS_PROBE = "1"; });`);
  const { status, output } = run([hookedFile("d"), hookedFile("e"), own]);
  assert.equal(status, 0, output);
  assert.match(output, new RegExp(`----- ${own} \\(exit 0`));
  assert.match(output, /3 files in 2 processes, 0 failed; tests 7, suites 3, pass 7, fail 0/);
});

test("one failing test fails the run and is reported", () => {
  const failing = hookedFile("failing", `test("failing three", () => assert.equal(1, 2));`);
  const { status, output } = run([hookedFile("f"), failing]);
  assert.equal(status, 1);
  assert.match(output, /✖ failing three/);
  assert.match(output, /2 files in 1 processes, 1 failed; tests 5, suites 2, pass 4, fail 1/);
});

test("a file that cannot load fails the run", () => {
  const broken = path.join(dir, "broken.test.ts");
  fs.writeFileSync(broken, `import "./does-not-exist.ts";\n`);
  const { status, output } = run([hookedFile("g"), broken]);
  assert.equal(status, 1, output);
  assert.match(output, /does-not-exist/);
});

test("every file named to run alone exists", () => {
  const root = path.resolve(import.meta.dirname, "..");
  assert.deepEqual(
    Object.keys(OWN_PROCESS).filter((file) => !fs.existsSync(path.join(root, file))),
    [],
  );
});
