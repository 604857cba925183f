// batch-settlement claims and settlements whose answer was lost, decided by the chain: the local facilitator's
// pretend channel contract (read through its pretend EVM node) says whether the lost operation happened; the
// channel manager records it done (the money moved once) or failed (made again once), and while the chain
// cannot be asked the operation stays unknown with an alarm and nothing more is claimed. Every balance is exact
// to the atomic unit.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import type { FacilitatorClient } from "@x402/core/server";
import { getDefaultAsset } from "@x402/evm";
import { BatchSettlementEvmScheme as BatchClient } from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { createLogger } from "../src/log.ts";
import { createEvmRpc } from "../src/x402/facilitator/evm-rpc.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { inProcessFetch } from "../src/x402/facilitator/json-rpc.ts";
import { BatchChannels } from "../src/x402/seller/batch/channel-manager.ts";
import {
  createBatchContractReaders,
  evmBatchContractReader,
} from "../src/x402/seller/chain/batch-contract.ts";
import type { FacilitatorSet } from "../src/x402/seller/facilitators/set.ts";
import { createResourceServer } from "../src/x402/seller/resource-server.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { newBuyer, startTestService, type TestService } from "./harness.ts";
import { testFamily } from "./test-family.ts";

const base = NETWORKS.base;
const PRICE = 10_000n; // the test item's $0.01
const ADMIN_TOKEN = "operator-token-for-lost-answers";
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

let service: TestService;

before(async () => {
  service = await startTestService(
    { BATCH_RECEIVER_AUTHORIZER_KEY: `0x${"3c".repeat(32)}`, ADMIN_TOKEN, WORKER_POLL_MS: "60000" },
    [testFamily],
  );
});
after(() => service.stop());

type Loss = "after" | "before";

/** The facilitator, losing the answer of the first claim or settle: after the contract ran it, or before. */
function lossy(kind: "claim" | "settle", when: Loss) {
  const facilitators = service.paywall()?.facilitators as FacilitatorSet;
  const reached = { claim: 0, settle: 0 };
  let lost = false;
  const client: FacilitatorClient = {
    verify: (p, r) => facilitators.verify(p, r),
    getSupported: () => facilitators.getSupported(),
    settle: async (p, r) => {
      const type = (p.payload as { type?: string }).type;
      const losing = type === kind && !lost;
      if (losing) lost = true;
      if (losing && when === "before") throw new Error("connect ETIMEDOUT");
      const answer = await facilitators.settle(p, r);
      if (type === "claim" || type === "settle") reached[type]++;
      if (losing) throw new Error("socket hang up");
      return answer;
    },
  };
  return { client, reached };
}

/** The local chain's node in process, which answers only while `up`. */
function switchableReader() {
  const node = inProcessFetch(createEvmRpc(service.store, base));
  const state = { up: true };
  const reader = evmBatchContractReader({
    rpcUrl: "http://local-evm-rpc.invalid/base",
    timeoutMs: 2000,
    fetchImpl: ((url: string, init?: RequestInit) =>
      state.up ? node(url, init) : Promise.reject(new TypeError("fetch failed"))) as typeof fetch,
  });
  return { reader, state };
}

async function channelsWith(client: FacilitatorClient, reader?: ReturnType<typeof switchableReader>) {
  const server = await createResourceServer(
    service.config,
    service.paywall()?.facilitators as FacilitatorSet,
    service.store,
  );
  return new BatchChannels(
    server,
    client,
    service.config,
    service.store,
    createLogger("silent"),
    ...(reader ? [() => reader.reader] : []),
  );
}

const balance = (address: string) => service.store.localUsdc.balance(base.caip2, address);
const payTo = () => service.config.payTo.evm as string;
/** What the pretend contract holds claimed and not settled for the pay-to. */
async function unsettledOnChain(): Promise<bigint> {
  const totals = await createBatchContractReaders(
    service.config,
    service.store,
  )(base.caip2).receiver(payTo(), getDefaultAsset(base.caip2 as `${string}:${string}`).asset);
  return totals.totalClaimed - totals.totalSettled;
}

let owed = 0n;
let sellerBefore = 0n;

/** Each test: a new buyer makes three voucher calls; everything before them is claimed and settled. */
beforeEach(async () => {
  await (await channelsWith(service.paywall()?.facilitators as FacilitatorSet)).flush();
  const account = newBuyer();
  await creditWallet(service.store, base, account.address, "1");
  const pay = wrapFetchWithPayment(
    fetch,
    new x402Client().register(base.caip2, new BatchClient(account)).setSpendControls(false),
  );
  for (let call = 0; call < 3; call++)
    assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  owed = (await service.store.batchOperations.figures()).unclaimedAtomic;
  assert.equal(owed, PRICE * 3n);
  assert.equal(await unsettledOnChain(), 0n);
  sellerBefore = await balance(payTo());
});

const states = (ops: Array<{ kind: string; state: string; amount?: string }> | undefined) =>
  ops?.map((o) => [o.kind, o.state, o.amount]);

test("a claim lost after the contract applied it: decided done from the chain, not claimed again", async () => {
  const { client, reached } = lossy("claim", "after");
  const channels = await channelsWith(client);
  const [first] = await channels.flush();
  assert.deepEqual(states(first?.operations), [["claim", "unknown", owed.toString()]]);
  assert.equal(await unsettledOnChain(), owed, "the contract applied the claim");
  assert.equal(await balance(payTo()), sellerBefore);

  const [second] = await channels.flush();
  assert.deepEqual(states(second?.decided), [["claim", "done", owed.toString()]]);
  assert.equal(second?.reason, "unsettled");
  assert.deepEqual(states(second?.operations), [["settle", "done", owed.toString()]]);
  assert.equal(reached.claim, 1, "claimed once: the store's channels were brought up to the chain");
  assert.equal(await balance(payTo()), sellerBefore + owed);
  const figures = await service.store.batchOperations.figures();
  assert.equal(figures.unclaimedAtomic, 0n);
  assert.equal(figures.unknown, 0);
  assert.equal(await unsettledOnChain(), 0n);
  assert.deepEqual(await channels.flush(), [], "nothing left to do");
});

test("a claim lost before it reached the contract: decided failed and claimed again once", async () => {
  const { client, reached } = lossy("claim", "before");
  const channels = await channelsWith(client);
  const [first] = await channels.flush();
  assert.deepEqual(states(first?.operations), [["claim", "unknown", owed.toString()]]);
  assert.equal(reached.claim, 0);
  assert.equal(await unsettledOnChain(), 0n);

  const [second] = await channels.flush();
  assert.deepEqual(states(second?.decided), [["claim", "failed", owed.toString()]]);
  assert.equal(second?.reason, "retry");
  assert.deepEqual(states(second?.operations), [
    ["claim", "done", owed.toString()],
    ["settle", "done", owed.toString()],
  ]);
  assert.equal(reached.claim, 1);
  assert.equal(await balance(payTo()), sellerBefore + owed);
  const figures = await service.store.batchOperations.figures();
  assert.equal(figures.unclaimedAtomic, 0n);
  assert.equal(figures.unknown, 0);
});

test("a settlement lost after the contract moved the money: decided done, not settled again", async () => {
  const { client, reached } = lossy("settle", "after");
  const channels = await channelsWith(client);
  const settledBefore = (await service.store.batchOperations.figures()).settlements.atomic;
  const [first] = await channels.flush();
  assert.deepEqual(states(first?.operations), [
    ["claim", "done", owed.toString()],
    ["settle", "unknown", owed.toString()],
  ]);
  assert.equal(await balance(payTo()), sellerBefore + owed, "the contract moved it");

  const [second] = await channels.flush();
  assert.deepEqual(states(second?.decided), [["settle", "done", owed.toString()]]);
  assert.equal(second?.reason, null);
  assert.deepEqual(second?.operations, []);
  assert.equal(reached.settle, 1);
  assert.equal(await balance(payTo()), sellerBefore + owed);
  assert.equal((await service.store.batchOperations.figures()).settlements.atomic, settledBefore + owed);
  assert.deepEqual(await channels.flush(), []);
});

test("a settlement lost before it reached the contract: decided failed and settled again once", async () => {
  const { client, reached } = lossy("settle", "before");
  const channels = await channelsWith(client);
  const [first] = await channels.flush();
  assert.deepEqual(states(first?.operations), [
    ["claim", "done", owed.toString()],
    ["settle", "unknown", owed.toString()],
  ]);
  assert.equal(await balance(payTo()), sellerBefore);
  assert.equal(await unsettledOnChain(), owed);

  const [second] = await channels.flush();
  assert.deepEqual(states(second?.decided), [["settle", "failed", owed.toString()]]);
  assert.equal(second?.reason, "retry");
  assert.deepEqual(states(second?.operations), [["settle", "done", owed.toString()]]);
  assert.equal(reached.settle, 1);
  assert.equal(await balance(payTo()), sellerBefore + owed);
  assert.equal(await unsettledOnChain(), 0n);
});

test("the chain unreachable: the lost claim stays unknown with an alarm, nothing is claimed; decided once it answers", async () => {
  const { client, reached } = lossy("claim", "after");
  const chain = switchableReader();
  const channels = await channelsWith(client, chain);
  await channels.flush();
  chain.state.up = false;

  for (let beat = 0; beat < 2; beat++) {
    const [round] = await channels.flush();
    assert.equal(round?.reason, "undecided");
    assert.deepEqual(round?.decided, []);
    assert.deepEqual(round?.operations, []);
  }
  assert.equal(reached.claim, 1, "not claimed again while undecided");
  assert.equal(await balance(payTo()), sellerBefore);
  const figures = await service.store.batchOperations.figures();
  assert.equal(figures.unknown, 1);
  assert.equal(figures.chain.unreachable, 1);
  assert.match(figures.chain.lastError ?? "", /local-evm-rpc\.invalid/);
  const health = (await (await fetch(`${service.url}/health`)).json()) as {
    settlements: { alarm: string | null; batchChain: { unreachable: number } };
  };
  assert.equal(health.settlements.batchChain.unreachable, 1);
  assert.match(
    health.settlements.alarm ?? "",
    /1 batch-settlement claim\(s\) or settlement\(s\) on eip155:8453/,
  );
  const metrics = await (await fetch(`${service.url}/metrics`, { headers: admin })).text();
  assert.match(metrics, /^paycall_batch_operations_unreachable 1$/m);
  const stats = (await (await fetch(`${service.url}/admin/stats`, { headers: admin })).json()) as any;
  assert.equal(stats.batch.unreachableOperations, 1);

  chain.state.up = true;
  const [decided] = await channels.flush();
  assert.deepEqual(states(decided?.decided), [["claim", "done", owed.toString()]]);
  assert.deepEqual(states(decided?.operations), [["settle", "done", owed.toString()]]);
  assert.equal(reached.claim, 1);
  assert.equal(await balance(payTo()), sellerBefore + owed);
  const cleared = (await (await fetch(`${service.url}/health`)).json()) as {
    settlements: { alarm: string | null };
  };
  assert.equal(cleared.settlements.alarm, null);
});
