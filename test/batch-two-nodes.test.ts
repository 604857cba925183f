// batch-settlement on two nodes sharing one store (PostgreSQL in the PostgreSQL run, else one SQLite file), each
// with the local facilitator over the shared pretend chain: a buyer's vouchers alternate between the nodes, and
// one voucher sent 50 times at once to both is delivered and charged once.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { type Service, startService } from "../src/service.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { batchBuyer, signedVoucher } from "./batch-client.ts";
import { newBuyer } from "./harness.ts";
import { handlerRuns, resetHandlerRuns, testFamily } from "./test-family.ts";
import { type TestDatabase, testDatabase } from "./test-store.ts";

const base = NETWORKS.base;
const PRICE = 10_000n;
const ITEM = "/v1/test/item?mode=ok";

let database: TestDatabase;
let dir: string;
let nodes: Service[];

async function node(name: string): Promise<Service> {
  const dataDir = fs.mkdtempSync(path.join(dir, `${name}-`));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path.join(dir, "shared.sqlite")}`,
    ...database.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    UPSTREAMS: "replay",
    LOG_LEVEL: "silent",
    RUN_WARMERS: "false",
    // One deployment: one pay-to and one receiver authorizer on every node.
    PAY_TO_EVM: "0x00000000000000000000000000000000000000bb",
    BATCH_RECEIVER_AUTHORIZER_KEY: `0x${"7d".repeat(32)}`,
    WORKER_POLL_MS: "60000",
    RATE_LIMIT_PER_MIN: "100000",
  });
  const service = await startService(config, { log: createLogger("silent"), families: [testFamily] });
  await service.paymentsReady;
  return service;
}

before(async () => {
  database = testDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-batch-nodes-"));
  nodes = [await node("a"), await node("b")];
});
after(async () => {
  for (const n of nodes) await n.close();
  await database.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const nodeUrl = (i: number) => (nodes[i % 2] as Service).url;

test("a buyer's vouchers alternate between two nodes; one voucher sent 50 times at once is delivered once", async () => {
  const [a] = nodes as [Service, Service];
  const account = newBuyer();
  await creditWallet(a.store, base, account.address, "1");
  const { scheme: client, pay } = batchBuyer(account);
  for (let call = 0; call < 6; call++) {
    const response = await pay(`${nodeUrl(call)}${ITEM}`);
    assert.equal(response.status, 200, `call ${call} on node ${call % 2}`);
  }
  const [channel] = await a.store.channels.list(base.caip2);
  assert.equal(channel?.chargedCumulativeAmount, (PRICE * 6n).toString());

  // The seventh voucher, signed once, sent 50 times at once to both nodes.
  const { payload, header } = await signedVoucher(client, `${nodeUrl(0)}${ITEM}`);
  assert.equal((payload.payload as any).voucher.maxClaimableAmount, (PRICE * 7n).toString());
  resetHandlerRuns();
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      fetch(`${nodeUrl(i)}${ITEM}`, { headers: { "payment-signature": header } }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      }),
    ),
  );
  assert.equal(answers.filter((s) => s === 200).length, 1, `statuses: ${answers.join(",")}`);
  assert.equal(handlerRuns, 1);
  assert.equal(
    (await a.store.channels.get(base.caip2, channel.channelId))?.chargedCumulativeAmount,
    (PRICE * 7n).toString(),
  );
  const sales = (await a.store.ledger.list({ limit: 100 })).filter(
    (r) => r.batch_channel === channel.channelId && r.state === "settled",
  );
  assert.deepEqual(
    sales.map((r) => r.batch_cumulative).sort((x, y) => Number(x) - Number(y)),
    [1n, 2n, 3n, 4n, 5n, 6n, 7n].map((n) => (PRICE * n).toString()),
  );
});
