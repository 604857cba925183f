// A buyer's timed withdrawal, end to end against the local facilitator's pretend channel contract: the buyer
// signs initiateWithdraw and sends it to the pretend EVM node; the channel manager's "withdraw delay" trigger
// claims its vouchers and settles them before the delay runs out; the buyer's finalizeWithdraw, once the delay
// has passed (the node's clock moved on), returns only the unclaimed rest. Every balance is exact to the unit.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { BatchSettlementEvmScheme as BatchClient } from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { decodeFunctionResult, encodeFunctionData, type Hex, type PrivateKeyAccount } from "viem";
import { BATCH_CONTRACT_ABI } from "../src/x402/facilitator/batch-contract.ts";
import { createEvmRpc } from "../src/x402/facilitator/evm-rpc.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { withdrawDelayServiceEnv } from "./batch-client.ts";
import { newBuyer, startTestService, type TestService } from "./harness.ts";
import { payerTransaction } from "./payer-transaction.ts";
import { testFamily } from "./test-family.ts";

const base = NETWORKS.base;
const PRICE = 10_000n; // the test item's $0.01
const DELAY_SEC = 86_400;
const HALF_DELAY_MS = (DELAY_SEC * 1000) / 2;

let service: TestService;

before(async () => {
  // Neither the threshold nor the interval comes first: only the withdraw-delay rule makes this claim.
  service = await startTestService(withdrawDelayServiceEnv(DELAY_SEC), [testFamily]);
});
after(() => service.stop());

const balance = (address: string) => service.store.localUsdc.balance(base.caip2, address);

/** The pretend node, its clock `aheadSec` seconds ahead of the wall clock (time passing on chain). */
function node(aheadSec: number) {
  const rpc = createEvmRpc(service.store, base, () => Math.floor(Date.now() / 1000) + aheadSec);
  return (method: string, params: unknown[]) =>
    rpc({ jsonrpc: "2.0", id: 1, method, params }) as Promise<{ result?: Hex; error?: { message: string } }>;
}

/** The buyer signs a transaction to the contract and sends it to the node itself. */
async function send(account: PrivateKeyAccount, aheadSec: number, data: Hex) {
  const raw = await payerTransaction(account, base, data);
  return node(aheadSec)("eth_sendRawTransaction", [raw]);
}

async function pendingWithdrawal(channelId: Hex): Promise<readonly [bigint, number]> {
  const data = encodeFunctionData({
    abi: BATCH_CONTRACT_ABI,
    functionName: "pendingWithdrawals",
    args: [channelId],
  });
  const answer = await node(0)("eth_call", [{ to: BATCH_SETTLEMENT_ADDRESS, data }, "latest"]);
  return decodeFunctionResult({
    abi: BATCH_CONTRACT_ABI,
    functionName: "pendingWithdrawals",
    data: answer.result as Hex,
  });
}

test("a buyer's timed withdrawal: claimed before the delay runs out, the buyer gets back only the unclaimed rest", async () => {
  const account = newBuyer();
  await creditWallet(service.store, base, account.address, "1");
  const payTo = service.config.payTo.evm as string;
  const sellerBefore = await balance(payTo);
  const pay = wrapFetchWithPayment(
    fetch,
    new x402Client().register(base.caip2, new BatchClient(account)).setSpendControls(false),
  );
  for (let call = 0; call < 3; call++)
    assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  const [channel] = (await service.store.channels.list(base.caip2)).filter(
    (c) => c.channelConfig.payer.toLowerCase() === account.address.toLowerCase(),
  );
  assert.ok(channel);
  const deposit = BigInt(channel.balance); // ten calls' worth, the 402's minimum
  const charged = PRICE * 3n;
  assert.equal(deposit, PRICE * 10n);
  const config = { ...channel.channelConfig, salt: channel.channelConfig.salt as Hex };

  // The buyer asks for everything back (nothing is claimed yet, so all the deposit may be asked for).
  const initiate = encodeFunctionData({
    abi: BATCH_CONTRACT_ABI,
    functionName: "initiateWithdraw",
    args: [config, deposit],
  });
  const asked = await send(account, 0, initiate);
  assert.match(asked.result ?? "", /^0x[0-9a-f]{64}$/, JSON.stringify(asked));
  const [pendingAmount, initiatedAt] = await pendingWithdrawal(channel.channelId as Hex);
  assert.equal(pendingAmount, deposit);
  const finalize = encodeFunctionData({
    abi: BATCH_CONTRACT_ABI,
    functionName: "finalizeWithdraw",
    args: [config],
  });
  assert.match((await send(account, 0, finalize)).error?.message ?? "", /WithdrawDelayNotElapsed/);

  // The manager's beat: not due a minute before half the delay; due at half the delay, with half left.
  const beats = service.paywall()?.batch;
  const lastVoucher = channel.lastRequestTimestamp;
  assert.deepEqual(await beats?.tick(lastVoucher + HALF_DELAY_MS - 60_000), []);
  const [round] = (await beats?.tick(lastVoucher + HALF_DELAY_MS)) ?? [];
  assert.equal(round?.reason, "withdraw-delay");
  assert.deepEqual(
    round?.operations.map((o) => [o.kind, o.state, o.amount]),
    [
      ["claim", "done", charged.toString()],
      ["settle", "done", charged.toString()],
    ],
  );
  assert.equal(await balance(payTo), sellerBefore + charged);

  // The delay has passed on chain: the buyer finalizes and gets back the deposit less what was claimed.
  const elapsed = Number(initiatedAt) + DELAY_SEC - Math.floor(Date.now() / 1000);
  assert.match((await send(account, elapsed - 5, finalize)).error?.message ?? "", /WithdrawDelayNotElapsed/);
  const finalized = await send(account, elapsed + 1, finalize);
  assert.match(finalized.result ?? "", /^0x[0-9a-f]{64}$/, JSON.stringify(finalized));
  assert.equal(await balance(account.address), 1_000_000n - charged);
  assert.equal(await balance(payTo), sellerBefore + charged);
  assert.deepEqual(await pendingWithdrawal(channel.channelId as Hex), [0n, 0]);
  // Done once: a second finalize finds nothing pending.
  assert.match((await send(account, elapsed + 2, finalize)).error?.message ?? "", /NoPendingWithdrawal/);
});
