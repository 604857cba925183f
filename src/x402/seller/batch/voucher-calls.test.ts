// Voucher calls end to end on the seller's side: the SDK's own batch-settlement client (x402Client,
// @x402/fetch) pays a route of the test family; the facilitator is a stub that answers the deposit's verify
// and settle as a channel contract would, so what is checked here is the seller: the 402's offer, the
// vouchers it accepts alone, the store's channel, the ledger, and that only a 2xx answer is charged.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { BatchSettlementEvmScheme as BatchClient } from "@x402/evm/batch-settlement/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { signedVoucher } from "../../../../test/batch-client.ts";
import { startTestService, type TestService } from "../../../../test/harness.ts";
import { type StubFacilitator, startStubFacilitator } from "../../../../test/stub-facilitator.ts";
import { STUB_PAY_TO } from "../../../../test/stubbed-service.ts";
import { handlerRuns, resetHandlerRuns, testFamily } from "../../../../test/test-family.ts";
import { canonicalRequest } from "../../../catalog/input.ts";
import { sha256 } from "../../../sha256.ts";
import { decodeHeaderJson } from "../../shared/header-codec.ts";
import { paymentNonceKey } from "../payment-identity.ts";

const BASE = "eip155:8453";
const AUTHORIZER_KEY = `0x${"5a".repeat(32)}`;
const AUTHORIZER = privateKeyToAccount(AUTHORIZER_KEY as `0x${string}`).address;
const PRICE = 10_000n; // the test item's $0.01
const DEPOSIT = PRICE * 10n; // the SDK's default minimum deposit: ten calls

let stub: StubFacilitator;
let service: TestService;

/** The stub answers a deposit as the channel contract would: the channel holds what was deposited. */
function answerDeposits(payer: PrivateKeyAccount): void {
  const state = { balance: DEPOSIT.toString(), totalClaimed: "0", withdrawRequestedAt: 0, refundNonce: "0" };
  stub.verify = { kind: "json", status: 200, body: { isValid: true, payer: payer.address, extra: state } };
  stub.settle = {
    kind: "json",
    status: 200,
    body: {
      success: true,
      transaction: `0x${"de".repeat(32)}`,
      network: BASE,
      payer: payer.address,
      extra: { channelState: state },
    },
  };
}

function buyer(): { account: PrivateKeyAccount; pay: typeof fetch; client: BatchClient } {
  const account = privateKeyToAccount(generatePrivateKey());
  const client = new BatchClient(account);
  const x402 = new x402Client().register(BASE, client).setSpendControls(false);
  return { account, client, pay: wrapFetchWithPayment(fetch, x402) };
}

before(async () => {
  stub = await startStubFacilitator();
  stub.supported.kinds.push({ x402Version: 2, scheme: "batch-settlement", network: BASE });
  service = await startTestService(
    {
      FACILITATOR_URL: stub.url,
      PAY_TO_EVM: STUB_PAY_TO,
      BATCH_RECEIVER_AUTHORIZER_KEY: AUTHORIZER_KEY,
      WORKER_POLL_MS: "60000",
    },
    [testFamily],
  );
});
after(async () => {
  await service.stop();
  await stub.close();
});
beforeEach(() => {
  stub.calls.verify = 0;
  stub.calls.settle = 0;
  resetHandlerRuns();
});

test("the 402 offers batch-settlement beside exact, with this seller's receiver authorizer", async () => {
  const response = await fetch(`${service.url}/v1/test/item?mode=ok`);
  assert.equal(response.status, 402);
  const required = decodeHeaderJson<PaymentRequired>(response.headers.get("payment-required") as string);
  const batch = required.accepts.find((a) => a.scheme === "batch-settlement");
  assert.ok(required.accepts.some((a) => a.scheme === "exact" && a.network === BASE));
  assert.equal(batch?.network, BASE);
  assert.equal(batch?.amount, PRICE.toString());
  assert.equal(batch?.payTo.toLowerCase(), STUB_PAY_TO);
  assert.equal(batch?.extra?.receiverAuthorizer, AUTHORIZER);
  assert.equal(batch?.extra?.withdrawDelay, 86_400);
});

test("one deposit, then vouchers the seller accepts alone: each answer charged once, on the ledger", async () => {
  const { account, pay } = buyer();
  answerDeposits(account);
  for (let call = 1; call <= 6; call++) {
    const response = await pay(`${service.url}/v1/test/item?mode=ok`);
    assert.equal(response.status, 200, `call ${call}`);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") as string);
    assert.equal(settlement.success, true);
    const state = (settlement.extra as { channelState?: { chargedCumulativeAmount?: string } }).channelState;
    assert.equal(state?.chargedCumulativeAmount, (PRICE * BigInt(call)).toString(), `call ${call}`);
  }
  // The deposit went through the facilitator; the five vouchers after it did not.
  assert.deepEqual(stub.calls, { verify: 1, settle: 1 });
  const rows = (await service.store.ledger.list()).filter(
    (r) => r.payer?.toLowerCase() === account.address.toLowerCase(),
  );
  const channelId = rows[0]?.batch_channel;
  assert.equal(rows.length, 6);
  assert.ok(
    rows.every(
      (r) => r.state === "settled" && r.amount === PRICE.toString() && r.batch_channel === channelId,
    ),
  );
  assert.deepEqual(
    rows.map((r) => r.batch_cumulative).sort((a, b) => Number(a) - Number(b)),
    [1, 2, 3, 4, 5, 6].map((n) => (PRICE * BigInt(n)).toString()),
  );
  const channel = await service.store.channels.get(BASE, channelId as string);
  assert.equal(channel?.chargedCumulativeAmount, (PRICE * 6n).toString());
  assert.equal(channel?.balance, DEPOSIT.toString());
  assert.equal(channel?.pendingRequest, undefined);
});

test("a non-2xx answer in the middle of a channel charges nothing; the next voucher is taken at the old total", async () => {
  const { account, pay } = buyer();
  answerDeposits(account);
  assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  const missing = await pay(`${service.url}/v1/test/item?mode=missing`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("payment-response"), null);
  const next = await pay(`${service.url}/v1/test/item?mode=ok`);
  assert.equal(next.status, 200);
  const rows = (await service.store.ledger.list()).filter(
    (r) => r.payer?.toLowerCase() === account.address.toLowerCase(),
  );
  assert.deepEqual(rows.map((r) => [r.state, r.batch_cumulative]).sort(), [
    ["settled", PRICE.toString()],
    ["settled", (PRICE * 2n).toString()],
  ]);
  const channel = await service.store.channels.get(BASE, rows[0]?.batch_channel as string);
  assert.equal(channel?.chargedCumulativeAmount, (PRICE * 2n).toString());
});

test("one voucher sent ten times at once is answered and charged once", async () => {
  const { account, pay, client } = buyer();
  answerDeposits(account);
  assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  const { header } = await nextVoucher(client);
  resetHandlerRuns();
  const answers = await Promise.all(
    Array.from({ length: 10 }, () =>
      fetch(`${service.url}/v1/test/item?mode=ok`, { headers: { "payment-signature": header } }),
    ),
  );
  assert.equal(answers.filter((r) => r.status === 200).length, 1);
  assert.equal(handlerRuns, 1);
  const rows = (await service.store.ledger.list()).filter(
    (r) => r.payer?.toLowerCase() === account.address.toLowerCase(),
  );
  assert.equal(rows.filter((r) => r.state === "settled").length, 2);
});

test("a voucher signed against another total gets the corrective 402 with the channel's state", async () => {
  const { account, pay, client } = buyer();
  answerDeposits(account);
  assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  const challenge = await fetch(`${service.url}/v1/test/item?mode=ok`);
  const required = decodeHeaderJson<PaymentRequired>(challenge.headers.get("payment-required") as string);
  const accepted = required.accepts.find((a) => a.scheme === "batch-settlement");
  assert.ok(accepted);
  // Priced at twice the call, the voucher's total runs one price ahead of what the seller charged.
  const ahead = await client.createPaymentPayload(2, { ...accepted, amount: (PRICE * 2n).toString() });
  const header = Buffer.from(
    JSON.stringify({ x402Version: 2, accepted, resource: required.resource, payload: ahead.payload }),
  ).toString("base64");
  const refused = await fetch(`${service.url}/v1/test/item?mode=ok`, {
    headers: { "payment-signature": header },
  });
  assert.equal(refused.status, 402);
  const corrective = decodeHeaderJson<PaymentRequired>(refused.headers.get("payment-required") as string);
  assert.match(corrective.error ?? "", /cumulative_amount_mismatch/);
  const state = corrective.accepts.find((a) => a.scheme === "batch-settlement")?.extra?.channelState as
    | { chargedCumulativeAmount?: string; balance?: string }
    | undefined;
  assert.equal(state?.chargedCumulativeAmount, PRICE.toString());
  assert.equal(state?.balance, DEPOSIT.toString());
  // The buyer's client reads that state and pays the next call at the right total.
  assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
});

test("the channel manager claims every channel's vouchers in one transaction, then settles them to the pay-to", async () => {
  const { account, pay } = buyer();
  answerDeposits(account);
  for (let call = 0; call < 3; call++)
    assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  const before = await service.store.channels.list(BASE);
  const owed = before.reduce(
    (sum, c) => sum + BigInt(c.chargedCumulativeAmount) - BigInt(c.totalClaimed),
    0n,
  );
  const sent: Array<{
    type: string;
    claims?: Array<{ totalClaimed: string }>;
    claimAuthorizerSignature?: string;
  }> = [];
  stub.onSettle = (body) => sent.push(body.paymentPayload.payload);
  try {
    const [round] = (await service.paywall()?.batch?.flush()) ?? [];
    assert.deepEqual(
      round?.operations.map((o) => [o.kind, o.state, o.vouchers, o.amount]),
      [
        ["claim", "done", before.length, owed.toString()],
        ["settle", "done", 0, owed.toString()],
      ],
    );
  } finally {
    stub.onSettle = undefined;
  }
  assert.deepEqual(
    sent.map((p) => p.type),
    ["claim", "settle"],
  );
  assert.equal(sent[0]?.claims?.length, before.length);
  assert.match(sent[0]?.claimAuthorizerSignature ?? "", /^0x[0-9a-f]{130}$/);
  for (const channel of await service.store.channels.list(BASE)) {
    assert.equal(channel.totalClaimed, channel.chargedCumulativeAmount);
  }
  // Nothing left to claim: the next beat sends nothing.
  assert.deepEqual(await service.paywall()?.batch?.flush(), []);
  const figures = await service.store.batchOperations.figures();
  assert.equal(figures.unclaimedAtomic, 0n);
  assert.equal(figures.unclaimedVouchers, 0);
  assert.equal(figures.claims.count, 1);
});

test("the operator refunds what a channel holds beyond its vouchers; the channel is closed", async () => {
  const { account, pay } = buyer();
  answerDeposits(account);
  assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  const [row] = (await service.store.ledger.list()).filter(
    (r) => r.payer?.toLowerCase() === account.address.toLowerCase(),
  );
  const channelId = row?.batch_channel as string;
  const sent: Array<{ type: string; amount?: string }> = [];
  stub.onSettle = (body) => sent.push(body.paymentPayload.payload);
  try {
    const op = await service.paywall()?.batch?.refund(BASE, channelId);
    assert.equal(op?.state, "done");
    assert.equal(op?.amount, (DEPOSIT - PRICE).toString());
  } finally {
    stub.onSettle = undefined;
  }
  assert.equal(sent[0]?.type, "refund");
  assert.equal(sent[0]?.amount, (DEPOSIT - PRICE).toString());
  assert.equal(await service.store.channels.get(BASE, channelId), undefined);
  const figures = await service.store.batchOperations.figures();
  assert.equal(figures.refunds.count, 1);
  assert.equal(figures.refunds.atomic, DEPOSIT - PRICE);
});

/** A voucher for the buyer's next call, as its PAYMENT-SIGNATURE, and its payload. */
const nextVoucher = (client: BatchClient) => signedVoucher(client, `${service.url}/v1/test/item?mode=ok`);

/**
 * What a node killed between accepting a voucher and answering leaves: the call's pending ledger row (written
 * long enough ago to count as abandoned) and the voucher's reservation of the channel, or its committed total.
 */
async function crashedNode(payload: PaymentPayload, left: "reserved" | "committed") {
  const voucher = (payload.payload as { voucher: { channelId: string; maxClaimableAmount: string } }).voucher;
  const signed = voucher.maxClaimableAmount;
  const longAgo = new Date(Date.now() - 3600_000);
  const id = await service.store.ledger.claim(
    {
      sku: "test.item",
      requestHash: sha256(canonicalRequest("GET", "/v1/test/item", { mode: "ok" }, undefined)),
      network: BASE,
      payer: null,
      amount: PRICE.toString(),
      asset: payload.accepted.asset,
      payTo: payload.accepted.payTo,
      responseSha256: "",
      transaction: null,
      state: "pending",
      nonceKey: paymentNonceKey(payload),
      batchChannel: voucher.channelId.toLowerCase(),
      batchCumulative: signed,
    },
    longAgo,
  );
  await service.store.channels.update(BASE, voucher.channelId, (c) =>
    c && left === "committed"
      ? { ...c, chargedCumulativeAmount: signed, signedMaxClaimable: signed }
      : c && {
          ...c,
          pendingRequest: {
            pendingId: "dead-node",
            signedMaxClaimable: signed,
            expiresAt: Date.now() + 60_000,
          },
        },
  );
  return id as number;
}

test("a node killed before the voucher committed: its retry waits for the reservation, then the same total is paid once", async () => {
  const { account, pay, client } = buyer();
  answerDeposits(account);
  assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  const { payload, header } = await nextVoucher(client);
  const deadRow = await crashedNode(payload, "reserved");
  const send = () =>
    fetch(`${service.url}/v1/test/item?mode=ok`, { headers: { "payment-signature": header } });

  // The reservation is still live: not charged yet, maybe; the buyer is told to retry, nothing runs.
  resetHandlerRuns();
  const waiting = await send();
  assert.equal(waiting.status, 503);
  assert.equal(((await waiting.json()) as { charged: string }).charged, "unknown");
  assert.equal(handlerRuns, 0);

  // The reservation runs out. The retry (its own hold on the channel let go first) has the dead call decided:
  // not charged, the buyer told so; the same voucher then pays a new call.
  const channelId = (payload.payload as { voucher: { channelId: string } }).voucher.channelId;
  await service.store.channels.update(BASE, channelId, (c) => c && { ...c, pendingRequest: undefined });
  const decided = await send();
  assert.equal(decided.status, 402);
  const told = (await decided.json()) as { error: string; message: string };
  assert.equal(told.error, "payment_expired");
  assert.match(told.message, /nothing was charged\. Send the same voucher again/);
  assert.equal((await service.store.ledger.get(deadRow))?.state, "failed");
  assert.equal(handlerRuns, 0);
  const paid = await send();
  assert.equal(paid.status, 200);
  assert.equal(handlerRuns, 1);
  const channel = await service.store.channels.get(BASE, channelId);
  assert.equal(channel?.chargedCumulativeAmount, (PRICE * 2n).toString());
  const rows = (await service.store.ledger.list()).filter((r) => r.batch_channel === channelId.toLowerCase());
  assert.deepEqual(rows.map((r) => [r.state, r.batch_cumulative]).sort(), [
    ["failed", (PRICE * 2n).toString()],
    ["settled", PRICE.toString()],
    ["settled", (PRICE * 2n).toString()],
  ]);
});

test("a node killed after the voucher committed: the chain of record is the channel, the retry gets its answer free", async () => {
  const { account, pay, client } = buyer();
  answerDeposits(account);
  assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);
  const { payload, header } = await nextVoucher(client);
  const deadRow = await crashedNode(payload, "committed");
  assert.equal(await service.paywall()?.reconcile(deadRow), "settled");
  resetHandlerRuns();
  const retry = await fetch(`${service.url}/v1/test/item?mode=ok`, {
    headers: { "payment-signature": header },
  });
  assert.equal(retry.status, 200);
  assert.equal(handlerRuns, 1, "the answer is made again, not charged again");
  const channelId = (payload.payload as { voucher: { channelId: string } }).voucher.channelId;
  // Its receipt moves the buyer's channel on, as the scheme's own answers do: the price, the total after it.
  const late = decodePaymentResponseHeader(retry.headers.get("payment-response") as string);
  assert.equal(late.extra?.chargedAmount, PRICE.toString());
  assert.deepEqual(late.extra?.channelState, {
    channelId: channelId.toLowerCase(),
    chargedCumulativeAmount: (PRICE * 2n).toString(),
  });
  assert.equal(
    (await service.store.channels.get(BASE, channelId))?.chargedCumulativeAmount,
    (PRICE * 2n).toString(),
  );
  const row = await service.store.ledger.get(deadRow);
  assert.deepEqual([row?.state, row?.delivered], ["settled", 1]);

  // Sent once more (the buyer's client lost the answer's receipt and signs the same total again): the corrective
  // 402, with the channel's total to sign the next voucher against, not a bare "already used".
  const again = await fetch(`${service.url}/v1/test/item?mode=ok`, {
    headers: { "payment-signature": header },
  });
  assert.equal(again.status, 402);
  const corrective = decodeHeaderJson<PaymentRequired>(again.headers.get("payment-required") as string);
  assert.match(corrective.error ?? "", /cumulative_amount_mismatch/);
  const state = corrective.accepts.find((a) => a.scheme === "batch-settlement")?.extra?.channelState as
    | { chargedCumulativeAmount?: string }
    | undefined;
  assert.equal(state?.chargedCumulativeAmount, (PRICE * 2n).toString());
  assert.equal(handlerRuns, 1);
});
