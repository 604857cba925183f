// Against `node src/main.ts serve` (what `npm start` runs) with NETWORKS=base,solana and no FACILITATOR_URL:
// the faucet credits a Solana address, and an unmodified @x402/svm exact client pays over the pretend RPC.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { generateKeyPairSigner } from "@solana/kit";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { faucet, type NodeProcess, startNodeProcess } from "./node-process.ts";
import { type TestDatabase, testDatabase } from "./test-store.ts";

const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
let database: TestDatabase;
let dataDir: string;
let env: Record<string, string>;
let node: NodeProcess;

before(async () => {
  database = testDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-solana-start-"));
  env = {
    ...database.env,
    DATA_DIR: dataDir,
    NETWORKS: "base,solana",
    UPSTREAMS: "replay",
    RUN_WARMERS: "false",
  };
  node = await startNodeProcess(env, 60_000);
});
after(async () => {
  await node?.stop();
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("npm start with NETWORKS=base,solana and no FACILITATOR_URL: a Solana buyer funded by the faucet pays", async () => {
  const buyer = await generateKeyPairSigner();
  assert.match(
    await faucet(env, buyer.address, "1"),
    new RegExp(`${buyer.address} on solana: balance 1 USD`),
  );

  const health = (await (await fetch(`${node.url}/health`)).json()) as Record<string, any>;
  assert.deepEqual(health.networks, ["eip155:8453", SOLANA]);
  assert.match(health.localSolanaRpc.solana, /\/local-facilitator\/solana-rpc$/);

  const url = `${node.url}/v1/weather/noaa?lat=39.7456&lon=-97.0892`;
  const offer = ((await (await fetch(url)).json()) as any).accepts.find((a: any) => a.network === SOLANA);
  const rpcUrl = `${node.url}/local-facilitator/solana-rpc`;
  const client = new x402Client().register("solana:*", new ExactSvmScheme(buyer, { rpcUrl }));
  const response = await wrapFetchWithPayment(
    fetch,
    client,
  )(`${node.url}/v1/weather/noaa?lat=39.7456&lon=-97.0892`);
  assert.equal(response.status, 200, await response.clone().text());
  const receipt = decodePaymentResponseHeader(response.headers.get("payment-response") as string);
  assert.equal(receipt.success, true);
  assert.equal(receipt.network, SOLANA);
  assert.equal(receipt.payer, buyer.address);

  // The transaction is on the pretend chain, as a buyer's RPC sees it.
  const statuses = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "getSignatureStatuses",
      params: [[receipt.transaction]],
    }),
  });
  const status = ((await statuses.json()) as any).result.value[0];
  assert.equal(status.err, null);
  assert.equal(status.confirmationStatus, "finalized");
  // Exactly the offer's amount left the buyer's balance: one more faucet cent shows the rest.
  const rest = /balance ([\d.]+) USD/.exec(await faucet(env, buyer.address, "0.01"))?.[1];
  assert.equal(Math.round(Number(rest) * 1e6), 1_010_000 - Number(offer.amount));
});
