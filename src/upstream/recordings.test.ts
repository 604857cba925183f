// Every recording says where its bytes come from, as data: a public capture (repository, path, commit), a mirror
// reached from the build host, or none (and what it was written from).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
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

test("every product recording names its source in one of the three shapes", () => {
  const recordings = recordingDirs(path.resolve(import.meta.dirname, "../products")).flatMap(loadRecordings);
  assert.ok(recordings.length >= 290, `${recordings.length} recordings found`);
  const unsourced = recordings.filter((r) => sourceProblem(r.source) !== undefined).map((r) => r.file);
  assert.deepEqual(unsourced, []);
  const captures = new Set(recordings.map((r) => r.source.capture));
  assert.deepEqual([...captures].sort(), ["mirror", "none", "public"]);
});

test("a recording without a source is refused when loading, naming its file", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-unsourced-"));
  try {
    const recording = {
      sample: true,
      description: "a sample",
      upstream: "up",
      request: { method: "GET", path: "/x" },
      response: { status: 200, body: "{}" },
    };
    fs.writeFileSync(path.join(dir, "bare.recording.json"), JSON.stringify(recording));
    assert.throws(() => loadRecordings(dir), /bare\.recording\.json: source: every recording must name/);
    const guessed = { ...recording, source: { capture: "public", repository: "a/b", path: "x.json" } };
    fs.writeFileSync(path.join(dir, "bare.recording.json"), JSON.stringify(guessed));
    assert.throws(() => loadRecordings(dir), /bare\.recording\.json: source: commit must be a hex commit id/);
    const named = { ...recording, source: { capture: "none", writtenFrom: "this test" } };
    fs.writeFileSync(path.join(dir, "bare.recording.json"), JSON.stringify(named));
    assert.equal(loadRecordings(dir).length, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
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
