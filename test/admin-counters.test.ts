// The buffered daily counters: nothing is written per event; flushes add up across flushes and nodes; a failed
// flush keeps its counts; a service writes what is left when it closes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { openServiceStore } from "../src/service.ts";
import { DailyCounterRepository } from "../src/store/daily-counters.ts";
import { startTestService } from "./harness.ts";
import { openTestStore } from "./test-store.ts";

const today = () => new Date().toISOString().slice(0, 10);

test("counts stay in memory until a flush, which adds them to what the store has (any node)", async () => {
  const store = await openTestStore();
  try {
    const counts = store.dailyCounts;
    counts.count("a.one", "challenge");
    counts.count("a.one", "challenge");
    counts.count("a.one", "sample");
    assert.deepEqual(await counts.between(today(), today()), [], "nothing written before the flush");
    assert.equal(counts.buffered, 2);
    await counts.flush();
    assert.equal(counts.buffered, 0);

    // A second node adding to the same rows.
    const otherNode = new DailyCounterRepository(store.db);
    otherNode.count("a.one", "challenge", 5);
    otherNode.count("b.two", "paid");
    await otherNode.flush();
    counts.count("a.one", "sample");
    await counts.flush();
    assert.deepEqual(
      (await counts.between(today(), today())).map((c) => [c.sku, c.kind, c.count]),
      [
        ["a.one", "challenge", 7],
        ["a.one", "sample", 2],
        ["b.two", "paid", 1],
      ],
    );
  } finally {
    await store.close();
  }
});

test("the timer flushes on its own", async () => {
  const store = await openTestStore();
  const counts = new DailyCounterRepository(store.db, 20);
  try {
    counts.count("a.one", "paid", 3);
    for (let i = 0; i < 200 && (await counts.between(today(), today())).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(
      (await counts.between(today(), today())).map((c) => c.count),
      [3],
    );
  } finally {
    await counts.close();
    await store.close();
  }
});

test("a failed flush keeps the counts for the next one", async () => {
  const store = await openTestStore();
  const counts = new DailyCounterRepository(store.db);
  counts.count("a.one", "challenge", 2);
  await store.close();
  await assert.rejects(counts.flush());
  assert.equal(counts.buffered, 1, "still buffered");
  await assert.rejects(counts.close());
});

test("a closing service writes the counts it still holds", async () => {
  const service = await startTestService();
  try {
    await service.worker.runWarmer("ecb.fx");
    assert.equal((await fetch(`${service.url}/v1/macro/ecb/fx?pair=USD`)).status, 402);
    assert.equal((await fetch(`${service.url}/v1/macro/ecb/fx?pair=USD&sample=1`)).status, 200);
    await service.close();
    const reopened = await openServiceStore(
      loadConfig({ ...service.databaseEnv, DATA_DIR: service.dataDir }),
    );
    try {
      assert.deepEqual(
        (await reopened.dailyCounts.between(today(), today())).map((c) => [c.sku, c.kind, c.count]),
        [
          ["macro.ecb.fx", "challenge", 1],
          ["macro.ecb.fx", "sample", 1],
        ],
      );
    } finally {
      await reopened.close();
    }
  } finally {
    await service.stop().catch(() => {});
  }
});
