// Two nodes on one store: node A (ROLE=serve) takes a payment whose settle reply is lost; node B
// (ROLE=worker) finds the uncertain row on its beat and asks the chain. The buyer's retry on A then gets
// the answer B's decision allows. On PostgreSQL in the PostgreSQL run, else on one shared SQLite file.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { type Service, startService } from "../src/service.ts";
import { decodeBase64Json, newBuyer, signedPaymentHeader } from "./harness.ts";
import { eventually } from "./node-process.ts";
import { type StubEvmRpc, startStubEvmRpc } from "./stub-evm-rpc.ts";
import { type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";
import { handlerRuns, resetHandlerRuns, testFamily } from "./test-family.ts";
import { type TestDatabase, testDatabase } from "./test-store.ts";

const TX = `0x${"5a".repeat(32)}` as const;
const ITEM = "/v1/test/item?mode=ok";

let stub: StubFacilitator;
let rpc: StubEvmRpc;
let database: TestDatabase;
let dir: string;
let a: Service;
let b: Service;

async function node(role: "serve" | "worker"): Promise<Service> {
  const dataDir = fs.mkdtempSync(path.join(dir, `${role}-`));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path.join(dir, "shared.sqlite")}`,
    ...database.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    UPSTREAMS: "replay",
    LOG_LEVEL: "silent",
    RUN_WARMERS: "false",
    ROLE: role,
    FACILITATOR_URL: stub.url,
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    // Ends the hanging settles soon, yet leaves a loaded machine time to verify.
    FACILITATOR_TIMEOUT_MS: "1500",
    BASE_RPC_URL: rpc.url,
    WORKER_POLL_MS: "100",
    SCHEDULE_EVERY_MS: "500",
  });
  const service = await startService(config, { log: createLogger("silent"), families: [testFamily] });
  await service.paymentsReady;
  return service;
}

before(async () => {
  stub = await startStubFacilitator();
  rpc = await startStubEvmRpc();
  database = testDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-two-nodes-"));
  a = await node("serve");
  b = await node("worker");
});
after(async () => {
  await a.close();
  await b.close();
  await database.drop();
  await stub.close();
  await rpc.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function rowOf(header: string) {
  const nonce = ((decodeBase64Json(header).payload as any).authorization.nonce as string).toLowerCase();
  return (await a.store.db.selectFrom("ledger").selectAll().execute()).find((r) =>
    r.nonce_key?.endsWith(nonce),
  );
}

test("the settle reply is lost on node A; node B's worker decides from the chain; A's retry delivers", async () => {
  stub.settle = { kind: "hang" };
  stub.onSettle = (body) => {
    const auth = body.paymentPayload.payload.authorization;
    rpc.spend(auth.from, auth.nonce, TX);
  };
  resetHandlerRuns();
  const header = await signedPaymentHeader(newBuyer(), `${a.url}${ITEM}`);
  const first = await fetch(`${a.url}${ITEM}`, { headers: { "payment-signature": header } });
  assert.equal(first.status, 502);
  assert.equal(((await first.json()) as { error: string }).error, "settlement_unknown");

  const decided = await eventually(
    async () => {
      const row = await rowOf(header);
      return row?.state === "settled" ? row : undefined;
    },
    10_000,
    "node B to decide the row",
  );
  assert.deepEqual([decided.transaction, decided.delivered], [TX, 0]);

  const retry = await fetch(`${a.url}${ITEM}`, { headers: { "payment-signature": header } });
  assert.equal(retry.status, 200);
  assert.equal(decodePaymentResponseHeader(retry.headers.get("payment-response") as string).transaction, TX);
  assert.equal(handlerRuns, 1);
  assert.equal(stub.calls.settle, 1, "settled once, by the facilitator A asked");
  assert.equal((await rowOf(header))?.delivered, 1);
});

test("a row node A left pending (it stopped mid-settlement) is decided by node B; unspent and expired: not charged", async () => {
  stub.settle = { kind: "hang" };
  stub.onSettle = undefined;
  const header = await signedPaymentHeader(newBuyer(), `${a.url}${ITEM}`);
  assert.equal((await fetch(`${a.url}${ITEM}`, { headers: { "payment-signature": header } })).status, 502);
  const row = await rowOf(header);
  assert.ok(row);
  await a.store.db
    .updateTable("ledger")
    .set({ state: "pending", created_at: new Date(Date.now() - 3600_000).toISOString() })
    .where("id", "=", row.id)
    .execute();
  const validBefore = Number((decodeBase64Json(header).payload as any).authorization.validBefore);
  rpc.chainTime = validBefore + 1;
  const decided = await eventually(
    async () => {
      const current = await rowOf(header);
      return current?.state === "failed" ? current : undefined;
    },
    10_000,
    "node B to decide the pending row",
  );
  assert.match(decided.error_reason ?? "", /not charged/);
  assert.equal(stub.calls.settle, 2, "the second payment's one settlement, never a re-submission");
  rpc.chainTime = undefined;
});
