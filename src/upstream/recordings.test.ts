// Every recording says where its bytes come from, as data: a public capture (repository, path, commit), a mirror
// reached from the build host, or none (and what it was written from).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { loadRecordings, sourceProblem } from "./recordings.ts";

function recordingDirs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (!entry.isDirectory()) return [];
    const full = path.join(dir, entry.name);
    return entry.name === "recordings" ? [full, ...recordingDirs(full)] : recordingDirs(full);
  });
}

test("recordings that name their source name it in one of the three shapes", () => {
  const recordings = recordingDirs(path.resolve(import.meta.dirname, "../products")).flatMap(loadRecordings);
  const sourced = recordings.filter((r) => r.source !== undefined);
  assert.ok(sourced.length >= 140, `${sourced.length} recordings name their source`);
  const captures = new Set(sourced.map((r) => r.source?.capture));
  assert.deepEqual([...captures].sort(), ["mirror", "none", "public"]);
});

test("a malformed source is refused, naming what is wrong", () => {
  assert.equal(
    sourceProblem({ capture: "public", repository: "a/b", path: "x.json", commit: "459d134" }),
    undefined,
  );
  assert.match(
    sourceProblem({ capture: "public", repository: "a", path: "x", commit: "459d134" }) ?? "",
    /owner\/name/,
  );
  assert.match(
    sourceProblem({ capture: "public", repository: "a/b", path: "x", commit: "main" }) ?? "",
    /commit/,
  );
  assert.match(sourceProblem({ capture: "none" }) ?? "", /writtenFrom/);
  assert.match(sourceProblem({ capture: "guessed" }) ?? "", /capture must be/);
});
