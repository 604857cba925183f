// SIGTERM: /ready turns 503 at once, the request being paid for is still answered and settled, then exit 0.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { openServiceStore } from "../src/service.ts";
import { newBuyer, signedPaymentHeader } from "./harness.ts";
import { eventually, type NodeProcess, startNodeProcess } from "./node-process.ts";
import { STUB_SETTLED, type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";
import { type TestDatabase, testDatabase } from "./test-store.ts";

let stub: StubFacilitator;
let database: TestDatabase;
let dataDir: string;
let env: Record<string, string>;

before(async () => {
  stub = await startStubFacilitator();
  database = testDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-shutdown-"));
  env = {
    ...database.env,
    DATA_DIR: dataDir,
    FACILITATOR_URL: stub.url,
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    UPSTREAMS: "replay",
    RUN_WARMERS: "false",
    WORKER_POLL_MS: "50",
    SHUTDOWN_DELAY_MS: "400",
    SHUTDOWN_GRACE_MS: "10000",
  };
});

after(async () => {
  await stub.close();
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Buys the fx sample request until it is answered: the first paid miss queues the fetch for the worker. */
async function cachedFxUrl(node: NodeProcess): Promise<string> {
  const url = `${node.url}/v1/macro/ecb/fx?pair=USD`;
  const buyer = newBuyer();
  await eventually(
    async () => {
      const response = await fetch(url, {
        headers: { "payment-signature": await signedPaymentHeader(buyer, url) },
      });
      return response.status === 200 ? true : undefined;
    },
    15_000,
    "the fx cache",
  );
  return url;
}

test("SIGTERM: /ready is 503 at once, the paid call in flight is answered and settled, exit 0", async () => {
  const node = await startNodeProcess(env);
  try {
    await eventually(
      async () => ((await fetch(`${node.url}/ready`)).ok ? true : undefined),
      10_000,
      "/ready",
    );
    const url = await cachedFxUrl(node);
    const header = await signedPaymentHeader(newBuyer(), url);
    stub.settle = { ...STUB_SETTLED, delayMs: 1500 };

    const paid = fetch(url, { headers: { "payment-signature": header } });
    await eventually(async () => (stub.calls.settle > 0 ? true : undefined), 10_000, "settlement to start");
    node.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ready = await fetch(`${node.url}/ready`);
    assert.equal(ready.status, 503);
    assert.match(JSON.stringify(await ready.json()), /draining/);

    const response = await paid;
    assert.equal(response.status, 200);
    assert.ok(response.headers.get("payment-response"));
    assert.equal(await node.exited, 0);
  } finally {
    await node.stop("SIGKILL");
  }
  const store = await openServiceStore(loadConfig(env));
  try {
    const rows = await store.ledger.list({});
    // The warm-up purchase and the one answered during shutdown.
    assert.deepEqual(
      rows.map((r) => r.state),
      ["settled", "settled"],
    );
  } finally {
    await store.close();
  }
});

test("ROLE=serve runs no worker and ROLE=worker serves only probes", async () => {
  const serveOnly = await startNodeProcess({ ...env, ROLE: "serve" });
  const workerOnly = await startNodeProcess({ ...env, ROLE: "worker" });
  try {
    const ready = (await (await fetch(`${workerOnly.url}/ready`)).json()) as { role: string; ready: boolean };
    assert.deepEqual([ready.role, ready.ready], ["worker", true]);
    const notApi = await fetch(`${workerOnly.url}/catalog.json`);
    assert.equal(notApi.status, 404);
    assert.match(((await notApi.json()) as { message: string }).message, /worker node/);
    assert.equal((await fetch(`${serveOnly.url}/catalog.json`)).status, 200);
  } finally {
    assert.equal(await serveOnly.stop(), 0);
    assert.equal(await workerOnly.stop(), 0);
  }
});
