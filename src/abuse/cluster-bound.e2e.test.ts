// A burst of one client spread over two nodes sharing one store (PostgreSQL in the PostgreSQL run, else one
// SQLite file) passes at most limit × 1.2 (src/abuse/rate-limiter.ts states the bound for N nodes).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { testFamily } from "../../test/test-family.ts";
import { type TestDatabase, testDatabase } from "../../test/test-store.ts";
import { loadConfig } from "../config.ts";
import { createLogger } from "../log.ts";
import { type Service, startService } from "../service.ts";
import { OVERSHOOT, WINDOW_MS } from "./rate-limiter.ts";

const LIMIT = 600;
let database: TestDatabase;
let dir: string;
let nodes: Service[] = [];

before(async () => {
  database = testDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-cluster-bound-"));
  for (const name of ["a", "b"]) {
    const config = loadConfig({
      DATABASE_URL: `sqlite:${path.join(dir, "shared.sqlite")}`,
      ...database.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: fs.mkdtempSync(path.join(dir, `${name}-`)),
      UPSTREAMS: "replay",
      LOG_LEVEL: "silent",
      RUN_WARMERS: "false",
      PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
      RATE_LIMIT_PER_MIN: String(LIMIT),
      TRUST_PROXY: "true",
    });
    const service = await startService(config, { log: createLogger("silent"), families: [testFamily] });
    await service.paymentsReady;
    nodes.push(service);
  }
});
after(async () => {
  for (const node of nodes) await node.close();
  nodes = [];
  await database.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a 1,000-request burst of one client across two nodes passes at most the limit × 1.2", async () => {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < 25_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  // Each node has heard of the other (their heartbeats in the shared counts).
  for (const node of nodes) await node.rateLimits.sync();
  for (const node of nodes) await node.rateLimits.sync();
  assert.deepEqual(
    nodes.map((n) => n.rateLimits.nodeCount),
    [2, 2],
  );
  // The whole burst within one sync period: the nodes' own timers stop (a sync then happens only when a node
  // asks for one), as a burst faster than the once-a-second sync would see them.
  for (const node of nodes) await node.rateLimits.stop();
  const send = async (i: number) => {
    const node = nodes[i % 2] as Service;
    const response = await fetch(`${node.url}/v1/test/item?mode=ok`, {
      headers: { "x-forwarded-for": "192.0.2.77" },
    });
    await response.arrayBuffer();
    return response.status;
  };
  const statuses: number[] = [];
  for (let i = 0; i < 1000; i += 40) {
    statuses.push(...(await Promise.all(Array.from({ length: 40 }, (_, k) => send(i + k)))));
  }
  const passed = statuses.filter((s) => s === 402).length;
  assert.equal(passed + statuses.filter((s) => s === 429).length, 1000);
  assert.ok(passed <= LIMIT * (1 + OVERSHOOT), `${passed} of 1,000 passed a limit of ${LIMIT}`);
  assert.ok(passed >= LIMIT * 0.8, `${passed} passed: the limit is not undercut much either`);
});
