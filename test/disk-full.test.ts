// The disk under the SQLite store fills up: the paid call that meets it gets a 503 naming the cause (nothing
// charged), the next ones are refused before verify, /ready says why, and the service takes payments again by
// itself once space returns. On a real full file system: a small tmpfs of its own.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { type Service, startService } from "../src/service.ts";
import { newBuyer, signedPaymentHeader } from "./harness.ts";
import { eventually } from "./node-process.ts";
import { type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";
import { testFamily } from "./test-family.ts";
import { TEST_DATABASE_URL } from "./test-store.ts";
import { mountTmpfs, type Tmpfs } from "./tmpfs.ts";

const ITEM = "/v1/test/item?mode=ok";
const mounted = TEST_DATABASE_URL ? undefined : mountTmpfs(24);
const skip = TEST_DATABASE_URL
  ? "the SQLite store's disk: runs in the SQLite run"
  : typeof mounted === "string"
    ? mounted
    : false;
if (skip) console.log(`disk-full.test.ts skipped: ${skip}`);

let disk: Tmpfs;
let stub: StubFacilitator;
let service: Service;
const buyer = newBuyer();

before(async () => {
  if (skip || !mounted || typeof mounted === "string") return;
  disk = mounted;
  stub = await startStubFacilitator();
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path.join(disk.dir, "store.sqlite")}`,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: fs.mkdtempSync(path.join(disk.dir, "data-")),
    UPSTREAMS: "replay",
    LOG_LEVEL: "silent",
    RUN_WARMERS: "false",
    FACILITATOR_URL: stub.url,
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
  });
  service = await startService(config, { log: createLogger("silent"), families: [testFamily] });
  await service.paymentsReady;
});

after(async () => {
  if (skip) return;
  disk?.free();
  await service?.close();
  await stub?.close();
  disk?.unmount();
});

async function paid(): Promise<Response> {
  const header = await signedPaymentHeader(buyer, `${service.url}${ITEM}`);
  return fetch(`${service.url}${ITEM}`, { headers: { "payment-signature": header } });
}

async function ready(): Promise<{ status: number; problems: string[] }> {
  const response = await fetch(`${service.url}/ready`);
  return { status: response.status, problems: ((await response.json()) as { problems: string[] }).problems };
}

test("a full disk under the SQLite store: 503 before verify, nothing charged, back by itself", {
  skip,
}, async () => {
  assert.equal((await paid()).status, 200);
  disk.fill();

  // Paid calls go on until one needs space the store cannot get (SQLite reuses room in its WAL file first).
  let refused: Response | undefined;
  for (let i = 0; i < 300 && !refused; i++) {
    const settlesBefore = stub.calls.settle;
    const answer = await paid();
    if (answer.status === 200) continue;
    refused = answer;
    assert.equal(stub.calls.settle, settlesBefore, "the call that met the full disk was not settled");
  }
  assert.ok(refused, "a paid call met the full disk");
  assert.equal(refused.status, 503);
  assert.ok(refused.headers.get("retry-after"));
  const body = (await refused.json()) as { error: string; reason: string; charged: boolean; message: string };
  assert.deepEqual([body.error, body.reason, body.charged], ["store_unavailable", "disk full", false]);
  assert.match(body.message, /disk full/);

  // From now on refused before the facilitator is asked.
  const verifies = stub.calls.verify;
  const next = await paid();
  assert.equal(next.status, 503);
  assert.equal(((await next.json()) as { error: string }).error, "store_unavailable");
  assert.equal(stub.calls.verify, verifies, "refused before verify");
  const down = await ready();
  assert.equal(down.status, 503);
  assert.ok(
    down.problems.some((p) => p.startsWith("store: disk full")),
    down.problems.join("; "),
  );

  disk.free();
  await eventually(async () => ((await ready()).status === 200 ? true : undefined), 10_000, "/ready");
  const again = await paid();
  assert.equal(again.status, 200);

  // Every settlement is on the ledger, delivered; nothing is left open.
  const ledger = await service.store.ledger.list({ limit: 1000 });
  assert.deepEqual(
    ledger.filter((r) => r.state !== "settled"),
    [],
  );
  assert.equal(ledger.length, stub.calls.settle);
  assert.ok(ledger.every((r) => r.delivered === 1));
});
