import assert from "node:assert/strict";
import { test } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import {
  noteRequest,
  releaseMemoryAfterBuilds,
  releaseMemoryNow,
  releaseMemorySoon,
} from "./memory-release.ts";

const youngBytes = () =>
  v8
    .getHeapSpaceStatistics()
    .filter((space) => space.space_name === "new_space")
    .reduce((sum, space) => sum + space.space_size, 0);

test("hands back the young generation that surviving allocations grew, and leaves no gc function anywhere", () => {
  // Objects kept across many scavenges make V8 grow the young generation, as start and index builds do.
  let kept: unknown[] = [];
  for (let round = 0; round < 200; round++) {
    kept.push(Array.from({ length: 2_000 }, (_, i) => ({ round, i })));
    if (kept.length > 50) kept = kept.slice(25);
  }
  kept = [];
  const grown = youngBytes();
  const ms = releaseMemoryNow();
  assert.equal(typeof ms, "number");
  assert.ok(youngBytes() < grown, `young generation ${youngBytes()} B, was ${grown} B`);
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, "undefined");
  assert.equal(vm.runInNewContext("typeof gc"), "undefined");
});

test("after builds: nothing unless turned on; then one collection once the process has been quiet for 2 s", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const ran: Array<number | undefined> = [];
  releaseMemorySoon((ms) => ran.push(ms));
  t.mock.timers.tick(5_000);
  assert.equal(ran.length, 0);
  releaseMemoryAfterBuilds(true);
  try {
    releaseMemorySoon((ms) => ran.push(ms));
    t.mock.timers.tick(1_000);
    releaseMemorySoon((ms) => ran.push(ms)); // a second build: one collection for both
    t.mock.timers.tick(1_999);
    assert.equal(ran.length, 0);
    noteRequest(); // traffic: the collection waits for a quiet moment
    t.mock.timers.tick(1);
    assert.equal(ran.length, 0);
    t.mock.timers.tick(1_000);
    noteRequest();
    t.mock.timers.tick(1_000);
    assert.equal(ran.length, 0);
    t.mock.timers.tick(2_000);
    assert.equal(ran.length, 1);
    assert.equal(typeof ran[0], "number");
    t.mock.timers.tick(10_000);
    assert.equal(ran.length, 1);
  } finally {
    releaseMemoryAfterBuilds(false);
  }
});
