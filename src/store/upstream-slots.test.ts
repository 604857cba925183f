import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openTestStore } from "../../test/test-store.ts";
import { loadConfig } from "../config.ts";
import { UpstreamRegistry } from "../upstream/registry.ts";
import type { Store } from "./store.ts";

const T = 1_800_000_000_000;

let store: Store;
beforeEach(async () => {
  store = await openTestStore();
});
afterEach(async () => {
  await store.close();
});

describe("UpstreamSlotRepository", () => {
  test("hands out at most max slots at once; a given-back or expired slot is taken again", async () => {
    const slots = store.upstreamBudgets.slots;
    const taken = await Promise.all([1, 2, 3].map(() => slots.take("ares", 2, 10_000, T)));
    const held = taken.filter((h) => h !== undefined);
    assert.deepEqual(held.map((h) => h.slot).sort(), [0, 1]);
    assert.equal(await slots.inFlight("ares", T), 2);
    await slots.give("ares", held[0]!);
    assert.equal((await slots.take("ares", 2, 10_000, T + 5000))?.slot, held[0]!.slot);
    assert.equal(await slots.take("ares", 2, 10_000, T + 5001), undefined);
    // The holder of the other slot died: its hold lapses.
    assert.equal((await slots.take("ares", 2, 10_000, T + 10_001))?.slot, held[1]!.slot);
  });

  test("a stale holder giving back a slot someone else holds frees nothing", async () => {
    const slots = store.upstreamBudgets.slots;
    const first = await slots.take("ares", 1, 1000, T);
    const second = await slots.take("ares", 1, 1000, T + 2000);
    assert.ok(first && second);
    await slots.give("ares", first);
    assert.equal(await slots.take("ares", 1, 1000, T + 2001), undefined);
  });

  test("two nodes' clients never have more than maxConcurrent requests in flight at the upstream", async () => {
    let inFlight = 0;
    let most = 0;
    const server = http.createServer(async (_req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await sleep(20);
      inFlight--;
      res.end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const config = loadConfig({ UPSTREAMS: "live", LOG_LEVEL: "silent", TEST_SLOW_BASE_URL: url });
      const spec = { name: "test-slow", defaultBaseUrl: url, maxConcurrent: 2, minIntervalMs: 0 };
      const nodes = [1, 2].map(() =>
        new UpstreamRegistry(config, undefined, undefined, store.upstreamBudgets).client(spec),
      );
      const answers = await Promise.all(
        nodes.flatMap((client) => Array.from({ length: 8 }, () => client.get({ path: "/item" }))),
      );
      assert.equal(answers.filter((a) => a.status === 200).length, 16);
      assert.equal(most, 2, `at most 2 requests in flight across both nodes, saw ${most}`);
      assert.equal(await store.upstreamBudgets.slots.inFlight("test-slow"), 0, "every slot given back");
    } finally {
      server.close();
    }
  });
});
