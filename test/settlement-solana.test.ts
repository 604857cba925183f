// Solana: an uncertain settlement is decided through the cluster's RPC (a stand-in here). The buyer's
// partially signed transaction carries the buyer's signature; the facilitator adds the fee payer's, which
// becomes the transaction id, so the check finds the transaction by the buyer's signature, or by the id the
// facilitator named, and calls it expired once its blockhash is no longer valid.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, beforeEach, test } from "node:test";
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { decodeBase64Json, startTestService, type TestService } from "./harness.ts";
import { STUB_SETTLED, STUB_VALID, type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";
import { type StubSolanaRpc, startStubSolanaRpc } from "./stub-solana-rpc.ts";
import { testFamily } from "./test-family.ts";

const ITEM = "/v1/test/item?mode=ok";
const MEMO_PROGRAM = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const base58 = getBase58Decoder();

let stub: StubFacilitator;
let rpc: StubSolanaRpc;
let service: TestService;

before(async () => {
  stub = await startStubFacilitator();
  rpc = await startStubSolanaRpc();
  service = await startTestService(
    {
      NETWORKS: "solana",
      FACILITATOR_URL: stub.url,
      PAY_TO_SOLANA: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
      FACILITATOR_TIMEOUT_MS: "300",
      SOLANA_RPC_URL: rpc.url,
      WORKER_POLL_MS: "60000",
    },
    [testFamily],
  );
});
after(async () => {
  await service.stop();
  await stub.close();
  await rpc.close();
});
beforeEach(() => {
  stub.verify = STUB_VALID;
  stub.settle = STUB_SETTLED;
  stub.onSettle = undefined;
  stub.calls.settle = 0;
  rpc.down = false;
});

/** A buyer's exact-SVM payment: a transaction signed by its authority, the fee payer's slot left empty. */
async function solanaPayment() {
  const challenge = await fetch(`${service.url}${ITEM}`);
  const accepted = (decodeBase64Json(challenge.headers.get("payment-required")).accepts as any[])[0];
  const authority = await generateKeyPairSigner();
  const feePayer = await generateKeyPairSigner();
  const blockhash = base58.decode(randomBytes(32)) as Blockhash;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          {
            programAddress: MEMO_PROGRAM,
            accounts: [{ address: authority.address, role: AccountRole.READONLY_SIGNER, signer: authority }],
            data: new TextEncoder().encode(randomBytes(16).toString("hex")),
          },
        ],
        m,
      ),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight: 1000n }, m),
  );
  const signed = await partiallySignTransactionMessageWithSigners(message);
  const buyerSignature = base58.decode(signed.signatures[authority.address] as Uint8Array);
  const header = Buffer.from(
    JSON.stringify({
      x402Version: 2,
      accepted,
      payload: { transaction: getBase64EncodedWireTransaction(signed) },
    }),
  ).toString("base64");
  const transactionId = base58.decode(randomBytes(64));
  return { header, authority: authority.address as string, buyerSignature, blockhash, transactionId };
}

const pay = (header: string) => fetch(`${service.url}${ITEM}`, { headers: { "payment-signature": header } });

test("reply lost after the transfer: the buyer's signature finds the transaction, the retry gets the answer", async () => {
  const payment = await solanaPayment();
  stub.settle = { kind: "hang" };
  stub.onSettle = () =>
    rpc.land({
      id: payment.transactionId,
      signatures: [payment.transactionId, payment.buyerSignature],
      accounts: [payment.authority],
    });
  const first = await pay(payment.header);
  assert.equal(first.status, 502);
  assert.equal(((await first.json()) as { error: string }).error, "settlement_unknown");

  const retry = await pay(payment.header);
  assert.equal(retry.status, 200);
  const receipt = decodePaymentResponseHeader(retry.headers.get("payment-response") as string);
  assert.equal(receipt.transaction, payment.transactionId);
  assert.equal(receipt.network, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp");
  assert.equal(stub.calls.settle, 1);
});

test("transfer never made: 503 while the blockhash is valid, 402 expired once it is not", async () => {
  const payment = await solanaPayment();
  stub.settle = { kind: "hang" };
  assert.equal((await pay(payment.header)).status, 502);
  const waiting = await pay(payment.header);
  assert.equal(waiting.status, 503);
  assert.equal(((await waiting.json()) as { error: string }).error, "payment_confirming");
  assert.ok(Number(waiting.headers.get("retry-after")) > 0);

  rpc.expire(payment.blockhash);
  const expired = await pay(payment.header);
  assert.equal(expired.status, 402);
  assert.equal(((await expired.json()) as { error: string }).error, "payment_expired");
  assert.equal(stub.calls.settle, 1);
});

test("a transaction the facilitator named (settlement_pending) is confirmed by its signature status", async () => {
  const payment = await solanaPayment();
  stub.settle = {
    kind: "json",
    status: 200,
    body: {
      success: false,
      errorReason: "settlement_pending",
      transaction: payment.transactionId,
      network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    },
  };
  assert.equal((await pay(payment.header)).status, 502);
  rpc.land({ id: payment.transactionId, signatures: [payment.transactionId], accounts: [] });
  const before = rpc.calls.getSignatureStatuses ?? 0;
  const retry = await pay(payment.header);
  assert.equal(retry.status, 200);
  assert.equal(
    decodePaymentResponseHeader(retry.headers.get("payment-response") as string).transaction,
    payment.transactionId,
  );
  assert.ok((rpc.calls.getSignatureStatuses ?? 0) > before);
});

test("Solana RPC down: 503, the row stays unknown, and the alarm names the network", async () => {
  const payment = await solanaPayment();
  stub.settle = { kind: "hang" };
  assert.equal((await pay(payment.header)).status, 502);
  rpc.down = true;
  assert.equal((await pay(payment.header)).status, 503);
  const status = await service.paywall()?.settlementStatus();
  assert.deepEqual(status?.chain.networks, ["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"]);
  assert.match(status?.alarm ?? "", /HTTP 503/);
  rpc.down = false;
  rpc.expire(payment.blockhash);
  assert.equal((await pay(payment.header)).status, 402);
  assert.equal((await service.paywall()?.settlementStatus())?.alarm, null);
});
