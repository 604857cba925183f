// The local facilitator's pretend Solana JSON-RPC: what buyers and paycall's own settlement checks read, and
// a JSON-RPC error (never a crash) for anything else; /health names its URL.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  createSolanaRpc as createKitRpc,
  generateKeyPairSigner,
  type KeyPairSigner,
  mainnet,
} from "@solana/kit";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { loadConfig } from "../src/config.ts";
import type { Store } from "../src/store/store.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { BLOCKHASH_VALID_BLOCKS, blockHeightAt, blockhashOf } from "../src/x402/facilitator/solana-blocks.ts";
import { registerLocalSolana } from "../src/x402/facilitator/solana-facilitator.ts";
import { createSettlementChains } from "../src/x402/seller/chain/index.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { startTestService, type TestService } from "./harness.ts";
import { paymentTransaction } from "./solana-tx.ts";

const SOLANA = NETWORKS.solana;
let service: TestService;
let rpcUrl: string;

before(async () => {
  service = await startTestService({ NETWORKS: "base,solana" });
  rpcUrl = `${service.url}/local-facilitator/solana-rpc`;
});
after(() => service.stop());

async function call(body: unknown): Promise<any> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  assert.equal(response.status, 200);
  return response.json();
}

test("Solana Kit reads the USDC mint (6 decimals, the token program) and a blockhash that lives ~60 s", async () => {
  const rpc = createKitRpc(mainnet(rpcUrl));
  const account = await rpc.getAccountInfo(SOLANA.usdc.address as never, { encoding: "base64" }).send();
  assert.equal(account.value?.owner, "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
  const data = Buffer.from(account.value?.data[0] as string, "base64");
  assert.equal(data.length, 82);
  assert.equal(data[44], 6);
  const { value } = await rpc.getLatestBlockhash().send();
  const height = await rpc.getBlockHeight().send();
  assert.equal(value.lastValidBlockHeight - height, BigInt(BLOCKHASH_VALID_BLOCKS));
  assert.ok((await rpc.getSlot().send()) > height);
  assert.equal((await rpc.isBlockhashValid(value.blockhash).send()).value, true);
  const old = blockhashOf(SOLANA.caip2, Number(height) - BLOCKHASH_VALID_BLOCKS - 1);
  assert.equal((await rpc.isBlockhashValid(old as never).send()).value, false);
  // Another account: none on the pretend chain.
  assert.equal((await rpc.getAccountInfo(SOLANA.caip2.slice(7) as never).send()).value, null);
});

test("the block height advances with time, and the blockhash rotates with it", async () => {
  const first = await call({ jsonrpc: "2.0", id: 1, method: "getLatestBlockhash" });
  await new Promise((resolve) => setTimeout(resolve, 900));
  const second = await call({ jsonrpc: "2.0", id: 2, method: "getLatestBlockhash" });
  assert.ok(second.result.value.lastValidBlockHeight >= first.result.value.lastValidBlockHeight + 2);
  assert.notEqual(second.result.value.blockhash, first.result.value.blockhash);
});

test("unknown methods, malformed bodies and bad params get JSON-RPC errors", async () => {
  assert.equal(
    (await call({ jsonrpc: "2.0", id: 7, method: "sendTransaction", params: ["AA=="] })).error.code,
    -32601,
  );
  const unknown = await call({ jsonrpc: "2.0", id: "x", method: "getEverything" });
  assert.deepEqual([unknown.id, unknown.error.code], ["x", -32601]);
  assert.equal((await call("{not json")).error.code, -32700);
  assert.equal((await call({ id: 1, method: "getSlot" })).error.code, -32600);
  assert.equal((await call({ jsonrpc: "2.0", id: 1, method: "getSlot", params: {} })).error.code, -32602);
  assert.equal(
    (await call({ jsonrpc: "2.0", id: 1, method: "getSignatureStatuses", params: [5] })).error.code,
    -32602,
  );
  assert.equal((await call({ jsonrpc: "2.0", id: 1, method: "toString" })).error.code, -32601);
  assert.equal((await call([])).error.code, -32600);
  const batch = await call([
    { jsonrpc: "2.0", id: 1, method: "getBlockHeight" },
    { jsonrpc: "2.0", id: 2, method: "nope" },
  ]);
  assert.equal(typeof batch[0].result, "number");
  assert.equal(batch[1].error.code, -32601);
  const health = (await (await fetch(`${service.url}/health`)).json()) as Record<string, any>;
  assert.equal(health.localSolanaRpc?.solana, `${service.config.publicUrl}/local-facilitator/solana-rpc`);
});

test("paycall's settlement check reads the pretend RPC in local mode: spent, open, then expired", async () => {
  const store: Store = service.store;
  const feePayer: KeyPairSigner = await generateKeyPairSigner();
  const payTo = (await generateKeyPairSigner()).address;
  const facilitator = new x402Facilitator();
  registerLocalSolana(facilitator, store, [SOLANA], { feePayer });
  const requirements: PaymentRequirements = {
    scheme: "exact",
    network: SOLANA.caip2,
    asset: SOLANA.usdc.address,
    amount: "5000",
    payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: feePayer.address },
  };
  const buyer = await generateKeyPairSigner();
  await creditWallet(store, SOLANA, buyer.address, "1");
  const transaction = async (blockhash: string) =>
    paymentTransaction({
      buyer,
      feePayer: feePayer.address,
      mint: SOLANA.usdc.address,
      payTo,
      amount: 5000n,
      blockhash,
    });
  const lookup = (tx: string, named: string | null = null) => ({
    payload: { x402Version: 2, accepted: requirements, payload: { transaction: tx } } as PaymentPayload,
    requirements,
    transaction: named,
    attemptedAt: new Date(),
  });
  const chain = createSettlementChains(
    loadConfig({ DATA_DIR: service.dataDir, NETWORKS: "solana" }),
    store,
  )(SOLANA.caip2);
  const now = blockHeightAt(Date.now());

  const settledTx = await transaction(blockhashOf(SOLANA.caip2, now));
  const settled = await facilitator.settle(lookup(settledTx).payload, requirements);
  assert.equal(settled.success, true);
  assert.deepEqual(await chain.check(lookup(settledTx, settled.transaction)), {
    state: "spent",
    transaction: settled.transaction,
  });
  // The buyer's retry names no transaction: the chain finds it by the buyer's signature.
  assert.deepEqual(await chain.check(lookup(settledTx)), {
    state: "spent",
    transaction: settled.transaction,
  });

  const unsent = await transaction(blockhashOf(SOLANA.caip2, now));
  assert.equal((await chain.check(lookup(unsent))).state, "open");
  const expired = await transaction(blockhashOf(SOLANA.caip2, now - BLOCKHASH_VALID_BLOCKS - 1));
  assert.deepEqual(await chain.check(lookup(expired)), { state: "expired" });
});
