// A channel drained before it was claimed (its buyer's timed withdrawal finalized first) must not keep the other
// channels of a claim unclaimed: the contract reverts a whole claim with ClaimExceedsBalance when one row asks
// more than its channel holds. Three buyers against the local facilitator's pretend channel contract; the third
// withdraws everything before any claim. The manager's beat claims and settles the other two exactly, writes
// the third's charges off as lost (shown in /admin, the stats and /metrics), and never claims it again. A claim
// refused anyway is split until the others go through, at most 16 refusals a round. Every balance is exact to
// the unit.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { FacilitatorClient } from "@x402/core/server";
import { encodeFunctionData, type Hex, type PrivateKeyAccount } from "viem";
import { formatStatsText } from "../src/admin/text-report.ts";
import { createLogger } from "../src/log.ts";
import { BATCH_CONTRACT_ABI } from "../src/x402/facilitator/batch-contract.ts";
import { createEvmRpc } from "../src/x402/facilitator/evm-rpc.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { BatchChannels } from "../src/x402/seller/batch/channel-manager.ts";
import { ChainUnreachableError } from "../src/x402/seller/chain/verdict.ts";
import type { FacilitatorSet } from "../src/x402/seller/facilitators/set.ts";
import { createResourceServer } from "../src/x402/seller/resource-server.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { batchBuyer, localEvmRpcUrl, pretendChain, withdrawDelayServiceEnv } from "./batch-client.ts";
import { newBuyer, startTestService, type TestService } from "./harness.ts";
import { payerTransaction } from "./payer-transaction.ts";
import { testFamily } from "./test-family.ts";

const base = NETWORKS.base;
const PRICE = 10_000n; // the test item's $0.01
const DELAY_SEC = 86_400;
const ADMIN_TOKEN = "operator-token-for-drained-channels";
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

let service: TestService;

before(async () => {
  // Neither the threshold nor the interval comes first: the beat claims by the withdraw-delay rule.
  service = await startTestService({ ...withdrawDelayServiceEnv(DELAY_SEC), ADMIN_TOKEN }, [testFamily]);
});
after(() => service.stop());

const usdc = (address: string) => service.store.localUsdc.balance(base.caip2, address);
const payTo = () => service.config.payTo.evm as string;
const chain = () => pretendChain(localEvmRpcUrl(service.url));
/** The service's own channel manager (the claimer at each beat). */
function manager(): BatchChannels {
  const batch = service.paywall()?.batch;
  assert.ok(batch, "batch-settlement is offered");
  return batch;
}

/** The buyer signs a transaction to the contract and sends it to the pretend node, its clock `aheadSec` on. */
async function send(account: PrivateKeyAccount, aheadSec: number, data: Hex): Promise<void> {
  const rpc = createEvmRpc(service.store, base, () => Math.floor(Date.now() / 1000) + aheadSec);
  const raw = await payerTransaction(account, base, data);
  const answer = (await rpc({ jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [raw] })) as {
    result?: Hex;
    error?: { message: string };
  };
  assert.match(answer.result ?? "", /^0x[0-9a-f]{64}$/, JSON.stringify(answer));
}

interface Buyer {
  account: PrivateKeyAccount;
  channelId: Hex;
  charged: bigint;
  lastVoucher: number;
}

/**
 * Three buyers making 2, 3 and 4 voucher calls; the third withdraws its deposit but `left` (all of it unless
 * told), finalized after the delay.
 */
async function threeBuyersOneDrained(left = 0n): Promise<Buyer[]> {
  const buyers: Buyer[] = [];
  for (const calls of [2, 3, 4]) {
    const account = newBuyer();
    await creditWallet(service.store, base, account.address, "1");
    const { pay } = batchBuyer(account);
    for (let call = 0; call < calls; call++)
      assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
    const channel = (await service.store.channels.list(base.caip2)).find(
      (c) => c.channelConfig.payer.toLowerCase() === account.address.toLowerCase(),
    );
    assert.ok(channel);
    assert.equal(BigInt(channel.chargedCumulativeAmount), PRICE * BigInt(calls));
    buyers.push({
      account,
      channelId: channel.channelId as Hex,
      charged: PRICE * BigInt(calls),
      lastVoucher: channel.lastRequestTimestamp,
    });
  }
  const drained = buyers[2] as Buyer;
  const channel = await service.store.channels.get(base.caip2, drained.channelId);
  assert.ok(channel);
  const config = { ...channel.channelConfig, salt: channel.channelConfig.salt as Hex };
  const deposit = BigInt(channel.balance);
  const withdraw = (functionName: "initiateWithdraw" | "finalizeWithdraw") =>
    encodeFunctionData({
      abi: BATCH_CONTRACT_ABI,
      functionName,
      args: functionName === "initiateWithdraw" ? [config, deposit - left] : [config],
    } as Parameters<typeof encodeFunctionData>[0]);
  await send(drained.account, 0, withdraw("initiateWithdraw"));
  await send(drained.account, DELAY_SEC + 60, withdraw("finalizeWithdraw"));
  assert.deepEqual(await chain().channel(drained.channelId), { balance: left, totalClaimed: 0n });
  assert.equal(await usdc(drained.account.address), 1_000_000n - left, "the buyer took its deposit back");
  return buyers;
}

const states = (ops: Array<{ kind: string; state: string; amount?: string }> | undefined) =>
  ops?.map((o) => [o.kind, o.state, o.amount]);

test("a channel drained before its claim: the beat claims and settles the others, writes the drained one off, and does not claim it again", async () => {
  const sellerBefore = await usdc(payTo());
  const before = await service.store.batchOperations.figures();
  const [a, b, drained] = (await threeBuyersOneDrained()) as [Buyer, Buyer, Buyer];
  const paid = a.charged + b.charged;

  const beats = manager();
  const due = Math.max(a.lastVoucher, b.lastVoucher, drained.lastVoucher) + DELAY_SEC * 1000;
  const [round] = (await beats.tick(due)) ?? [];
  assert.equal(round?.reason, "withdraw-delay");
  assert.deepEqual(states(round?.operations), [
    ["lost", "done", drained.charged.toString()],
    ["claim", "done", paid.toString()],
    ["settle", "done", paid.toString()],
  ]);
  assert.equal(round?.operations[1]?.vouchers, 2);
  assert.equal(await usdc(payTo()), sellerBefore + paid);
  assert.deepEqual(await chain().channel(a.channelId), { balance: PRICE * 10n, totalClaimed: a.charged });
  assert.deepEqual(await chain().channel(b.channelId), { balance: PRICE * 10n, totalClaimed: b.charged });
  assert.deepEqual(await chain().channel(drained.channelId), { balance: 0n, totalClaimed: 0n });
  assert.equal(await usdc(drained.account.address), 1_000_000n);
  assert.equal(await usdc(a.account.address), 1_000_000n - PRICE * 10n);

  const figures = await service.store.batchOperations.figures();
  assert.deepEqual(figures.lost, {
    count: before.lost.count + 1,
    atomic: before.lost.atomic + drained.charged,
  });
  assert.equal(figures.unclaimedAtomic, 0n, "the drained channel is no longer counted as owing");
  assert.equal(figures.unclaimedVouchers, 0);
  assert.equal(
    figures.heldAtomic,
    before.heldAtomic + PRICE * 20n - paid,
    "the drained channel holds nothing",
  );

  // Later beats, even a flush, find nothing to claim: the drained channel is not claimed again.
  assert.deepEqual(await beats.tick(due + DELAY_SEC * 1000), []);
  assert.deepEqual(await beats.flush(), []);
  assert.equal(await usdc(payTo()), sellerBefore + paid);

  // The operator sees it beside the other batch figures.
  const stats = (await (await fetch(`${service.url}/admin/stats`, { headers: admin })).json()) as any;
  assert.equal(stats.batch.lost.count, figures.lost.count);
  assert.equal(stats.batch.lost.atomic, figures.lost.atomic.toString());
  assert.match(formatStatsText(stats), /Lost \(channels drained before claimed\) +1 \(\$0\.04\)/);
  const page = await (await fetch(`${service.url}/admin`, { headers: admin })).text();
  assert.match(page, /Lost \(channels drained before claimed\)<\/span><b>1 \(\$0\.04/);
  const metrics = await (await fetch(`${service.url}/metrics`, { headers: admin })).text();
  assert.match(metrics, /^paycall_batch_operations\{kind="lost",measure="count"\} 1$/m);
  assert.match(metrics, /^paycall_batch_operations\{kind="lost",measure="usd"\} 0\.04$/m);
  assert.match(metrics, /^paycall_batch_unclaimed_usd 0$/m);

  // Nothing is left in it to refund: the operator is told so, and no operation is left undecided.
  const refund = await fetch(`${service.url}/admin/channels/refund`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ network: base.caip2, channel: drained.channelId }),
  });
  assert.match(await refund.text(), /drained before it was claimed, nothing is left to refund/);
  assert.equal((await service.store.batchOperations.figures()).unknown, figures.unknown);
});

test("the chain unreadable: a claim refused for one drained channel is split, the others claimed; written off once the chain answers", async () => {
  const [a, b, drained] = (await threeBuyersOneDrained()) as [Buyer, Buyer, Buyer];
  const paid = a.charged + b.charged;
  const sellerBefore = await usdc(payTo());
  const server = await createResourceServer(
    service.config,
    service.paywall()?.facilitators as FacilitatorSet,
    service.store,
  );
  const facilitator = service.paywall()?.facilitators as FacilitatorSet;
  const blind = new BatchChannels(
    server,
    facilitator,
    service.config,
    service.store,
    createLogger("silent"),
    () => {
      const fail = async (): Promise<never> => {
        throw new ChainUnreachableError("no RPC in this test");
      };
      return { channels: fail, receiver: fail };
    },
  );

  const [round] = await blind.flush();
  const ops = round?.operations ?? [];
  assert.equal(ops[0]?.kind, "claim");
  assert.equal(ops[0]?.state, "failed", "the three channels' claim is refused");
  assert.match(ops[0]?.errorReason ?? "", /ClaimExceedsBalance/);
  const done = ops.filter((o) => o.kind === "claim" && o.state === "done");
  assert.equal(
    done.reduce((sum, o) => sum + BigInt(o.amount), 0n),
    paid,
    "the two others claimed, in the halves",
  );
  const refused = ops.filter((o) => o.kind === "claim" && o.state === "failed");
  assert.ok(refused.every((o) => o.claims?.some((c) => c.channelId === drained.channelId.toLowerCase())));
  assert.deepEqual(states(ops.slice(-1)), [["settle", "done", paid.toString()]]);
  assert.equal(await usdc(payTo()), sellerBefore + paid);

  // Each beat tries the drained channel alone once (refused), and nothing else.
  const [again] = await blind.flush();
  assert.deepEqual(
    again?.operations.map((o) => [o.kind, o.state, o.vouchers]),
    [["claim", "failed", 1]],
  );

  // With the chain readable, the manager writes it off and stops claiming it.
  const [seen] = (await manager().flush()) ?? [];
  assert.deepEqual(states(seen?.operations), [["lost", "done", drained.charged.toString()]]);
  assert.deepEqual(await manager().flush(), []);
  assert.deepEqual(await blind.flush(), []);
  assert.equal(await usdc(payTo()), sellerBefore + paid);
  assert.equal((await service.store.batchOperations.figures()).unclaimedAtomic, 0n);
});

test("a channel partly drained: claimed up to what it still holds, in the same claim as the others; the rest written off", async () => {
  const left = PRICE * 2n;
  const sellerBefore = await usdc(payTo());
  const [a, b, drained] = (await threeBuyersOneDrained(left)) as [Buyer, Buyer, Buyer];
  const paid = a.charged + b.charged + left;
  const due = Math.max(a.lastVoucher, b.lastVoucher, drained.lastVoucher) + DELAY_SEC * 1000;
  const [round] = (await manager().tick(due)) ?? [];
  assert.deepEqual(states(round?.operations), [
    ["lost", "done", (drained.charged - left).toString()],
    ["claim", "done", paid.toString()],
    ["settle", "done", paid.toString()],
  ]);
  assert.equal(round?.operations[1]?.vouchers, 3);
  assert.deepEqual(await chain().channel(drained.channelId), { balance: left, totalClaimed: left });
  assert.equal(await usdc(payTo()), sellerBefore + paid);
  assert.equal(await usdc(drained.account.address), 1_000_000n - left);
  assert.deepEqual(await manager().tick(due + DELAY_SEC * 1000), []);
  assert.equal((await service.store.batchOperations.figures()).unclaimedAtomic, 0n);
});

test("a facilitator refusing every claim: a round stops after 16 refused claims, and the next beat claims once it accepts", async () => {
  for (let buyer = 0; buyer < 9; buyer++) {
    const account = newBuyer();
    await creditWallet(service.store, base, account.address, "1");
    assert.equal((await batchBuyer(account).pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  }
  const facilitators = service.paywall()?.facilitators as FacilitatorSet;
  const refusing: FacilitatorClient = {
    verify: (p, r) => facilitators.verify(p, r),
    getSupported: () => facilitators.getSupported(),
    settle: async (p, r) =>
      (p.payload as { type?: string }).type === "claim"
        ? { success: false, errorReason: "invalid_claim", transaction: "", network: r.network }
        : facilitators.settle(p, r),
  };
  const server = await createResourceServer(service.config, facilitators, service.store);
  const refused = new BatchChannels(server, refusing, service.config, service.store, createLogger("silent"));
  const sellerBefore = await usdc(payTo());
  for (let beat = 0; beat < 2; beat++) {
    const [round] = await refused.flush();
    // Split down to single channels, nine channels would take 17 refused claims: the round stops at 16.
    assert.equal(round?.operations.length, 16);
    assert.ok(round?.operations.every((o) => o.kind === "claim" && o.state === "failed"));
  }
  const [accepted] = await manager().flush();
  assert.deepEqual(states(accepted?.operations), [
    ["claim", "done", (PRICE * 9n).toString()],
    ["settle", "done", (PRICE * 9n).toString()],
  ]);
  assert.equal(await usdc(payTo()), sellerBefore + PRICE * 9n);
});
