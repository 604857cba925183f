// The local facilitator's batch-settlement scheme: the SDK's batch-settlement facilitator over the pretend
// channel contract (batch-contract.ts) on the store's USDC ledger. A buyer pays with the SDK's own client
// (x402Client + @x402/fetch); the seller is the SDK's server scheme (with its in-memory channel storage, in
// this test only) behind @x402/hono's middleware; the channel manager claims, settles and refunds.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { x402Client } from "@x402/core/client";
import type { x402Facilitator } from "@x402/core/facilitator";
import { type FacilitatorClient, x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, SupportedResponse } from "@x402/core/types";
import {
  BATCH_SETTLEMENT_ADDRESS,
  BATCH_SETTLEMENT_DOMAIN,
  type ChannelConfig,
  type ClientEvmSigner,
  claimBatchTypes,
  toClientEvmSigner,
} from "@x402/evm";
import { BatchSettlementEvmScheme as BatchClient, computeChannelId } from "@x402/evm/batch-settlement/client";
import {
  BatchSettlementEvmScheme as BatchServer,
  InMemoryChannelStorage,
} from "@x402/evm/batch-settlement/server";
import { wrapFetchWithPayment } from "@x402/fetch";
import { paymentMiddleware } from "@x402/hono";
import { Hono } from "hono";
import { createPublicClient, http } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { base as baseChain } from "viem/chains";
import { openTestStore } from "../../../test/test-store.ts";
import { LocalBatchContractRepository } from "../../store/local-batch-contract.ts";
import type { Store } from "../../store/store.ts";
import { NETWORKS } from "../shared/networks.ts";
import { createEvmRpc } from "./evm-rpc.ts";
import { createLocalFacilitator, creditWallet } from "./facilitator.ts";
import { inProcessFetch } from "./json-rpc.ts";
import { localFacilitatorRoutes } from "./routes.ts";

const base = NETWORKS.base;
const PRICE = 1000n; // $0.001 in atomic USDC

let store: Store;
let facilitator: x402Facilitator;

before(async () => {
  store = await openTestStore();
  facilitator = createLocalFacilitator(store, [base, NETWORKS["base-sepolia"]]);
});
after(() => store.close());

const newAccount = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey());
const balance = (address: string) => store.localUsdc.balance(base.caip2, address);

/** The facilitator in process, counting the calls the seller makes of it. */
function countingClient(): FacilitatorClient & { calls: string[] } {
  const calls: string[] = [];
  const kindOf = (p: PaymentPayload) => String((p.payload as { type?: unknown }).type);
  return {
    calls,
    verify: (p: PaymentPayload, r: PaymentRequirements) => {
      calls.push(`verify:${kindOf(p)}`);
      return facilitator.verify(p, r);
    },
    settle: (p: PaymentPayload, r: PaymentRequirements) => {
      calls.push(`settle:${kindOf(p)}`);
      return facilitator.settle(p, r);
    },
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

/** A seller of GET /data (and a GET /broken that answers 500) at PRICE a call, paid with batch-settlement. */
async function seller() {
  const payTo = newAccount().address;
  const authorizer = newAccount();
  const client = countingClient();
  const scheme = new BatchServer(payTo, {
    storage: new InMemoryChannelStorage(),
    receiverAuthorizerSigner: authorizer,
  });
  const resourceServer = new x402ResourceServer(client).register(base.caip2, scheme);
  const accepts = { scheme: "batch-settlement", network: base.caip2, payTo, price: "$0.001" } as const;
  const app = new Hono();
  app.use(
    paymentMiddleware(
      {
        "GET /data": { accepts, description: "data" },
        "GET /broken": { accepts, description: "broken" },
      },
      resourceServer,
    ),
  );
  app.get("/data", (c) => c.json({ ok: true }));
  app.get("/broken", (c) => c.json({ error: "upstream_failed" }, 500));
  const manager = scheme.createChannelManager(client, base.caip2);
  return { payTo, app, client, manager, scheme };
}

function buyer(account: PrivateKeyAccount | ClientEvmSigner, app: Hono) {
  const scheme = new BatchClient(account, { depositPolicy: { depositMultiplier: 5 } });
  const client = new x402Client().register(base.caip2, scheme);
  const fetchApp = (input: string | URL | Request, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request(input, init)));
  return { scheme, fetch: wrapFetchWithPayment(fetchApp as typeof fetch, client), fetchApp };
}

test("/supported lists batch-settlement on each EVM network, without a receiver authorizer", () => {
  const kinds = facilitator.getSupported().kinds.filter((k) => k.scheme === "batch-settlement");
  assert.deepEqual(
    kinds.map((k) => k.network),
    [base.caip2, NETWORKS["base-sepolia"].caip2],
  );
  assert.equal(kinds[0]?.extra, undefined);
});

test("deposits, vouchers without settling, then claim, settle and refund move pretend USDC exactly", async () => {
  const { payTo, app, client, manager } = await seller();
  const account = newAccount();
  await creditWallet(store, base, account.address, "1");
  const { fetch } = buyer(account, app);
  const held = await balance(BATCH_SETTLEMENT_ADDRESS);

  const first = await fetch("http://seller.test/data");
  assert.equal(first.status, 200, await first.clone().text());
  const deposit = 1_000_000n - (await balance(account.address));
  // The seller's 402 asks for ten calls' worth (the SDK server's minimum-deposit hint).
  assert.equal(deposit, PRICE * 10n);
  assert.equal(await balance(BATCH_SETTLEMENT_ADDRESS), held + deposit);

  for (let i = 0; i < 11; i += 1) {
    const response = await fetch("http://seller.test/data");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { ok: true });
  }
  // Twelve answers, two on-chain transactions: the deposit and one top-up when it ran out. No voucher was
  // settled on its own.
  assert.deepEqual(
    client.calls.filter((c) => c.startsWith("settle:")),
    ["settle:deposit", "settle:deposit"],
  );
  assert.equal(await balance(account.address), 1_000_000n - 2n * deposit);
  assert.equal(await balance(payTo), 0n);

  const claimed = await manager.claimAndSettle();
  assert.equal(claimed.claims.length, 1);
  assert.equal(claimed.claims[0]?.vouchers, 1);
  assert.equal(await balance(payTo), PRICE * 12n);
  assert.equal(await balance(BATCH_SETTLEMENT_ADDRESS), held + 2n * deposit - PRICE * 12n);

  const refunds = await manager.refund();
  assert.equal(refunds.length, 1);
  assert.equal(await balance(account.address), 1_000_000n - PRICE * 12n);
  assert.equal(await balance(BATCH_SETTLEMENT_ADDRESS), held);
  assert.equal(await balance(payTo), PRICE * 12n);
});

test("a non-2xx answer charges nothing: the next voucher is accepted at the old cumulative amount", async () => {
  const { payTo, app, manager } = await seller();
  const account = newAccount();
  await creditWallet(store, base, account.address, "1");
  const { fetch } = buyer(account, app);
  assert.equal((await fetch("http://seller.test/data")).status, 200);
  const broken = await fetch("http://seller.test/broken");
  assert.equal(broken.status, 500);
  assert.equal((await fetch("http://seller.test/data")).status, 200);
  await manager.claimAndSettle();
  assert.equal(await balance(payTo), PRICE * 2n);
});

test("the buyer asks for the rest back: a cooperative refund through the seller", async () => {
  const { payTo, app, manager } = await seller();
  const account = newAccount();
  await creditWallet(store, base, account.address, "1");
  const { fetch, scheme, fetchApp } = buyer(account, app);
  const held = await balance(BATCH_SETTLEMENT_ADDRESS);
  for (let i = 0; i < 3; i += 1) assert.equal((await fetch("http://seller.test/data")).status, 200);

  const refund = await scheme.refund("http://seller.test/data", { fetch: fetchApp as typeof fetch });
  assert.equal(refund.success, true, JSON.stringify(refund));
  // The refund claims the three calls first, in the same transaction, then returns the rest.
  assert.equal(await balance(account.address), 1_000_000n - PRICE * 3n);
  await manager.settle();
  assert.equal(await balance(payTo), PRICE * 3n);
  assert.equal(await balance(BATCH_SETTLEMENT_ADDRESS), held);
});

async function depositPayload(account: PrivateKeyAccount, requirements: PaymentRequirements) {
  const scheme = new BatchClient(account);
  const result = await scheme.createPaymentPayload(2, requirements);
  return { x402Version: 2, accepted: requirements, payload: result.payload } as PaymentPayload;
}

function batchRequirements(payTo: string, receiverAuthorizer: string): PaymentRequirements {
  return {
    scheme: "batch-settlement",
    network: base.caip2,
    asset: base.usdc.address,
    amount: PRICE.toString(),
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin", version: "2", receiverAuthorizer, withdrawDelay: 900 },
  };
}

test("refusals: a forged voucher, a deposit above the balance, a replayed deposit authorization", async () => {
  const account = newAccount();
  await creditWallet(store, base, account.address, "0.002");
  const requirements = batchRequirements(newAccount().address, newAccount().address);

  const forged = await depositPayload(account, requirements);
  const inner = forged.payload as { voucher: { signature: string } };
  inner.voucher.signature = `0x${"11".repeat(65)}`;
  const refused = await facilitator.verify(forged, requirements);
  assert.equal(refused.isValid, false);
  assert.equal(refused.invalidReason, "invalid_batch_settlement_evm_voucher_signature");

  const big = await depositPayload(account, {
    ...requirements,
    extra: { ...requirements.extra, minDeposit: "5000" },
  });
  const tooMuch = await facilitator.settle(big, requirements);
  assert.equal(tooMuch.success, false);
  assert.equal(tooMuch.errorReason, "invalid_batch_settlement_evm_insufficient_balance");

  const fits = await depositPayload(account, {
    ...requirements,
    extra: { ...requirements.extra, minDeposit: "1500" },
  });
  const settled = await facilitator.settle(fits, requirements);
  assert.equal(settled.success, true, JSON.stringify(settled));
  const again = await facilitator.settle(fits, requirements);
  assert.equal(again.success, false);
  assert.equal(await balance(account.address), 2000n - 1500n);
  const contract = new LocalBatchContractRepository(store.db);
  const channelId = (fits.payload as { voucher: { channelId: string } }).voucher.channelId;
  assert.equal((await contract.channel(base.caip2, channelId))?.balance, 1500n);
});

test("a claim whose authorizer signature is not the channel's receiver authorizer moves nothing", async () => {
  const account = newAccount();
  await creditWallet(store, base, account.address, "1");
  const authorizer = newAccount();
  const requirements = batchRequirements(newAccount().address, authorizer.address);
  const paid = await depositPayload(account, requirements);
  assert.equal((await facilitator.settle(paid, requirements)).success, true);
  const inner = paid.payload as {
    channelConfig: Record<string, unknown>;
    voucher: { maxClaimableAmount: string; signature: string; channelId: string };
  };
  const claim = {
    type: "claim",
    claims: [
      {
        voucher: { channel: inner.channelConfig, maxClaimableAmount: inner.voucher.maxClaimableAmount },
        signature: inner.voucher.signature,
        totalClaimed: inner.voucher.maxClaimableAmount,
      },
    ],
    claimAuthorizerSignature: await newAccount().signMessage({ message: "not a ClaimBatch" }),
  };
  const refused = await facilitator.settle(
    { x402Version: 2, accepted: requirements, payload: claim },
    requirements,
  );
  assert.equal(refused.success, false);
  assert.equal(refused.errorReason, "invalid_batch_settlement_evm_claim_simulation_failed");
  const contract = new LocalBatchContractRepository(store.db);
  assert.equal((await contract.channel(base.caip2, inner.voucher.channelId))?.totalClaimed, 0n);
});

test("HTTP: /supported lists batch-settlement and /verify takes a deposit payload", async () => {
  const app = localFacilitatorRoutes(facilitator);
  const supported = (await (await app.request("/supported")).json()) as { kinds: { scheme: string }[] };
  assert.ok(supported.kinds.some((k) => k.scheme === "batch-settlement"));
  const account = newAccount();
  await creditWallet(store, base, account.address, "1");
  const requirements = batchRequirements(newAccount().address, newAccount().address);
  const payload = await depositPayload(account, requirements);
  const response = await app.request("/verify", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { isValid: boolean; payer: string; extra: { balance: string } };
  assert.equal(body.isValid, true, JSON.stringify(body));
  assert.equal(body.payer, account.address);
  assert.equal(body.extra.balance, "0");
});

test("a buyer that lost its channel state recovers it from the pretend chain through the EVM node", async () => {
  const { payTo, app, manager } = await seller();
  const account = newAccount();
  await creditWallet(store, base, account.address, "1");
  const before = buyer(account, app);
  for (let i = 0; i < 3; i += 1) assert.equal((await before.fetch("http://seller.test/data")).status, 200);

  // A new client with the same key and no local channel: it reads the channel on the pretend chain, and
  // adopts the seller's cumulative amount from the corrective 402 after checking its own voucher signature.
  const rpc = createEvmRpc(store, base);
  const methods: string[] = [];
  const counted = async (body: unknown) => {
    methods.push(String((body as { method?: unknown }).method));
    return rpc(body);
  };
  const node = createPublicClient({
    chain: baseChain,
    transport: http("http://paycall.test/local-facilitator/evm-rpc", { fetchFn: inProcessFetch(counted) }),
  });
  const restarted = buyer(toClientEvmSigner(account, node), app);
  for (let i = 0; i < 2; i += 1) assert.equal((await restarted.fetch("http://seller.test/data")).status, 200);
  assert.ok(methods.includes("eth_call"), `the node was asked ${methods.join(", ")}`);

  await manager.claimAndSettle();
  assert.equal(await balance(payTo), PRICE * 5n);
  // One deposit only: the restarted client did not open a second channel.
  assert.equal(await balance(account.address), 1_000_000n - PRICE * 10n);
});

/** A deposited channel and the claim payload of its first voucher, signed by the receiver authorizer. */
async function depositedChannel(rows = 1) {
  const account = newAccount();
  await creditWallet(store, base, account.address, "1");
  const authorizer = newAccount();
  const payTo = newAccount().address;
  const requirements = batchRequirements(payTo, authorizer.address);
  const paid = await depositPayload(account, requirements);
  assert.equal((await facilitator.settle(paid, requirements)).success, true);
  const inner = paid.payload as {
    channelConfig: ChannelConfig;
    voucher: { maxClaimableAmount: string; signature: `0x${string}`; channelId: `0x${string}` };
  };
  const row = {
    voucher: { channel: inner.channelConfig, maxClaimableAmount: inner.voucher.maxClaimableAmount },
    signature: inner.voucher.signature,
    totalClaimed: inner.voucher.maxClaimableAmount,
  };
  const entry = {
    channelId: computeChannelId(inner.channelConfig, base.caip2),
    maxClaimableAmount: BigInt(row.totalClaimed),
    totalClaimed: BigInt(row.totalClaimed),
  };
  const claimAuthorizerSignature = await authorizer.signTypedData({
    domain: {
      ...BATCH_SETTLEMENT_DOMAIN,
      chainId: base.chainId,
      verifyingContract: BATCH_SETTLEMENT_ADDRESS,
    },
    types: claimBatchTypes,
    primaryType: "ClaimBatch",
    message: { claims: Array.from({ length: rows }, () => entry) },
  });
  const claim = { type: "claim", claims: Array.from({ length: rows }, () => row), claimAuthorizerSignature };
  return { requirements, payTo, channelId: inner.voucher.channelId, claim, amount: BigInt(row.totalClaimed) };
}

test("concurrent claims of one voucher and concurrent settles move it once", async () => {
  const { requirements, payTo, channelId, claim, amount } = await depositedChannel();
  const payload = { x402Version: 2, accepted: requirements, payload: claim } as PaymentPayload;
  const claims = await Promise.all(
    Array.from({ length: 8 }, () => facilitator.settle(payload, requirements)),
  );
  assert.ok(
    claims.every((c) => c.success),
    JSON.stringify(claims.find((c) => !c.success)),
  );
  const contract = new LocalBatchContractRepository(store.db);
  assert.equal((await contract.channel(base.caip2, channelId))?.totalClaimed, amount);
  assert.deepEqual(await contract.receiver(base.caip2, payTo, base.usdc.address), {
    totalClaimed: amount,
    totalSettled: 0n,
  });

  const settle = { type: "settle", receiver: payTo, token: base.usdc.address };
  const settles = await Promise.all(
    Array.from({ length: 8 }, () =>
      facilitator.settle({ x402Version: 2, accepted: requirements, payload: settle }, requirements),
    ),
  );
  // One settles the claimed amount; the others settle nothing: refused before sending (nothing to settle), or
  // sent and moving 0, as the contract's settle does once the receiver is settled up.
  const moved = settles.filter((s) => s.success && s.amount !== "0");
  assert.deepEqual(
    moved.map((s) => s.amount),
    [amount.toString()],
  );
  for (const s of settles.filter((s) => !moved.includes(s))) {
    assert.ok(
      s.success ? s.amount === "0" : s.errorReason === "invalid_batch_settlement_evm_nothing_to_settle",
      JSON.stringify(s),
    );
  }
  assert.equal(await balance(payTo), amount);
});

test("HTTP: a claim of a hundred rows fits the request limit; a row claimed twice in it counts once", async () => {
  const { requirements, payTo, claim, amount } = await depositedChannel(100);
  const app = localFacilitatorRoutes(facilitator);
  const body = JSON.stringify({
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements, payload: claim },
    paymentRequirements: requirements,
  });
  const response = await app.request("/settle", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  assert.equal(response.status, 200);
  assert.equal(((await response.json()) as { success: boolean }).success, true);
  const contract = new LocalBatchContractRepository(store.db);
  assert.equal((await contract.receiver(base.caip2, payTo, base.usdc.address)).totalClaimed, amount);
});

test("HTTP: a malformed batch-settlement payload is a 400 naming the field; a Permit2 deposit is refused by name", async () => {
  const app = localFacilitatorRoutes(facilitator);
  const account = newAccount();
  const requirements = batchRequirements(newAccount().address, newAccount().address);
  const good = await depositPayload(account, requirements);
  const post = (payload: unknown) =>
    app.request("/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        x402Version: 2,
        paymentPayload: { ...good, payload },
        paymentRequirements: requirements,
      }),
    });
  const inner = good.payload as Record<string, Record<string, unknown>>;
  const cases: [unknown, RegExp][] = [
    [
      { ...inner, voucher: { ...inner.voucher, maxClaimableAmount: "lots" } },
      /voucher\.maxClaimableAmount must be/,
    ],
    [
      { ...inner, channelConfig: { ...inner.channelConfig, withdrawDelay: "900" } },
      /channelConfig\.withdrawDelay/,
    ],
    [{ ...inner, type: "withdraw" }, /payload\.type must be one of/],
    [
      { type: "settle", receiver: "0x12", token: base.usdc.address },
      /payload\.receiver must be a 0x-prefixed/,
    ],
    [{ type: "claim", claims: [{ voucher: {} }] }, /claims\[0\]\.signature/],
  ];
  for (const [payload, message] of cases) {
    const response = await post(payload);
    assert.equal(response.status, 400, JSON.stringify(payload));
    assert.match(((await response.json()) as { invalidMessage: string }).invalidMessage, message);
  }
  const permit2 = {
    ...inner,
    deposit: { amount: "1000", authorization: { permit2Authorization: { from: account.address } } },
  };
  const refused = await facilitator.verify({ ...good, payload: permit2 }, requirements);
  assert.deepEqual([refused.isValid, refused.invalidReason], [false, "unsupported_payload_type"]);
});
