// The local facilitator's pretend EVM node: what a buyer's viem client reads there, and what it refuses.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { encodeFunctionData, getAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { payerTransaction } from "../../../test/payer-transaction.ts";
import { openTestStore } from "../../../test/test-store.ts";
import type { Store } from "../../store/store.ts";
import { NETWORKS } from "../shared/networks.ts";
import { BATCH_CONTRACT_ABI } from "./batch-contract.ts";
import { createEvmRpc } from "./evm-rpc.ts";
import { createLocalFacilitator, creditWallet } from "./facilitator.ts";
import type { JsonRpc } from "./json-rpc.ts";
import { LEDGER_USDC_ABI, PRETEND_BYTECODE } from "./ledger-signer.ts";
import { localFacilitatorRoutes } from "./routes.ts";

const base = NETWORKS.base;
let store: Store;
let rpc: JsonRpc;

before(async () => {
  store = await openTestStore();
  rpc = createEvmRpc(store, base);
});
after(() => store.close());

const request = (method: string, params: unknown[] = []) => rpc({ jsonrpc: "2.0", id: 1, method, params });
const call = (to: string, data: Hex) => request("eth_call", [{ to, data }, "latest"]);

test("chain id, code and USDC balances as Base's node answers them", async () => {
  assert.deepEqual(await request("eth_chainId"), { jsonrpc: "2.0", id: 1, result: "0x2105" });
  assert.equal(
    ((await request("eth_getCode", [BATCH_SETTLEMENT_ADDRESS])) as { result: string }).result,
    PRETEND_BYTECODE,
  );
  assert.equal(((await request("eth_getCode", [`0x${"12".repeat(20)}`])) as { result: string }).result, "0x");
  const holder = getAddress(`0x${"34".repeat(20)}`);
  await creditWallet(store, base, holder, "1.5");
  const data = encodeFunctionData({ abi: LEDGER_USDC_ABI, functionName: "balanceOf", args: [holder] });
  const answer = (await call(base.usdc.address, data)) as { result: Hex };
  assert.equal(BigInt(answer.result), 1_500_000n);
});

test("a channel nobody deposited into reads as empty, as on chain", async () => {
  const data = encodeFunctionData({
    abi: BATCH_CONTRACT_ABI,
    functionName: "channels",
    args: [`0x${"ab".repeat(32)}`],
  });
  const answer = (await call(BATCH_SETTLEMENT_ADDRESS, data)) as { result: Hex };
  assert.equal(answer.result, `0x${"0".repeat(128)}`);
});

test("transactions are refused: the node answers views only, as a revert", async () => {
  const data = encodeFunctionData({
    abi: BATCH_CONTRACT_ABI,
    functionName: "settle",
    args: [getAddress(`0x${"56".repeat(20)}`), getAddress(base.usdc.address)],
  });
  const answer = (await call(BATCH_SETTLEMENT_ADDRESS, data)) as { error: { code: number; message: string } };
  assert.equal(answer.error.code, 3);
  assert.match(answer.error.message, /views only/);
});

test("a signed transaction: only a payer's own timed withdrawal is taken", async () => {
  const payer = privateKeyToAccount(`0x${"71".repeat(32)}`);
  const stranger = privateKeyToAccount(`0x${"72".repeat(32)}`);
  const config = {
    payer: payer.address,
    payerAuthorizer: payer.address,
    receiver: getAddress(`0x${"56".repeat(20)}`),
    receiverAuthorizer: getAddress(`0x${"57".repeat(20)}`),
    token: getAddress(base.usdc.address),
    withdrawDelay: 900,
    salt: `0x${"00".repeat(32)}` as Hex,
  };
  const send = async (from: typeof payer, data: Hex) =>
    (await request("eth_sendRawTransaction", [await payerTransaction(from, base, data)])) as {
      error?: { code: number; message: string };
    };
  const initiate = encodeFunctionData({
    abi: BATCH_CONTRACT_ABI,
    functionName: "initiateWithdraw",
    args: [config, 5n],
  });
  assert.match((await send(stranger, initiate)).error?.message ?? "", /NotPayer/);
  assert.match((await send(payer, initiate)).error?.message ?? "", /ChannelNotFound/);
  const settle = encodeFunctionData({
    abi: BATCH_CONTRACT_ABI,
    functionName: "settle",
    args: [config.receiver, config.token],
  });
  assert.match(
    (await send(payer, settle)).error?.message ?? "",
    /initiateWithdraw and finalizeWithdraw only/,
  );
});

test("bad requests get JSON-RPC errors naming the problem", async () => {
  assert.equal(
    ((await request("eth_sendRawTransaction", ["0x00"])) as { error: { code: number } }).error.code,
    -32602,
  );
  const badTo = (await request("eth_call", [{ to: "0x12", data: "0x" }])) as { error: { message: string } };
  assert.match(badTo.error.message, /to must be 20 bytes/);
  const garbage = (await call(BATCH_SETTLEMENT_ADDRESS, "0xdeadbeef")) as { error: { code: number } };
  assert.equal(garbage.error.code, 3);
});

test("HTTP: mounted at /evm-rpc and /evm-rpc/<network>, open to any caller", async () => {
  const app = localFacilitatorRoutes(createLocalFacilitator(store, [base]), {
    evm: new Map([["base", rpc]]),
  });
  for (const path of ["/evm-rpc", "/evm-rpc/base"]) {
    const response = await app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "eth_chainId" }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 7, result: "0x2105" });
  }
});
