// A Solana buyer pays with an unmodified @x402/svm exact client (its own ExactSvmScheme and x402Client, its RPC
// pointed at the local facilitator's pretend Solana RPC) against a service with NETWORKS=base,solana and no
// FACILITATOR_URL: the local facilitator verifies and settles on the pretend ledger.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { generateKeyPairSigner, getBase58Decoder, getBase58Encoder, type KeyPairSigner } from "@solana/kit";
import type { PaymentRequirements } from "@x402/core/types";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { devSolanaFeePayer, devSolanaPayTo } from "../src/x402/facilitator/dev-wallets.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import {
  BLOCKHASH_VALID_BLOCKS,
  blockhashProblem,
  heightOfBlockhash,
} from "../src/x402/facilitator/solana-blocks.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { startTestService, type TestService } from "./harness.ts";
import { newSolanaSecretKey } from "./solana-client.ts";

const SOLANA = NETWORKS.solana;
let service: TestService;

before(async () => {
  service = await startTestService({ NETWORKS: "base,solana" });
  await service.worker.runWarmer("ecb.fx");
});
after(() => service.stop());

function solanaPayingFetch(signer: KeyPairSigner): typeof fetch {
  const rpcUrl = `${service.url}/local-facilitator/solana-rpc`;
  const client = new x402Client().register("solana:*", new ExactSvmScheme(signer, { rpcUrl }));
  return wrapFetchWithPayment(fetch, client) as typeof fetch;
}

test("an unmodified @x402/svm client pays on Solana: 200, a receipt, one ledger row, balances moved exactly", async () => {
  const buyer = await generateKeyPairSigner();
  const payTo = (await devSolanaPayTo(service.dataDir)).address;
  await creditWallet(service.store, SOLANA, buyer.address, "1");
  const payToBefore = await service.store.localUsdc.balance(SOLANA.caip2, payTo);

  const response = await solanaPayingFetch(buyer)(`${service.url}/v1/macro/ecb/fx?pair=USD`);
  assert.equal(response.status, 200, await response.clone().text());
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.pair, "EURUSD");

  const receipt = decodePaymentResponseHeader(response.headers.get("payment-response") as string);
  assert.equal(receipt.success, true);
  assert.equal(receipt.network, SOLANA.caip2);
  assert.match(receipt.transaction, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
  assert.equal(receipt.payer, buyer.address);

  const rows = await service.store.ledger.list();
  const row = rows.find((r) => r.transaction === receipt.transaction);
  assert.equal(row?.state, "settled");
  assert.equal(row?.network, SOLANA.caip2);
  assert.equal(row?.amount, "5000");
  assert.equal(row?.payer, buyer.address);

  assert.equal(await service.store.localUsdc.balance(SOLANA.caip2, buyer.address), 1_000_000n - 5000n);
  assert.equal((await service.store.localUsdc.balance(SOLANA.caip2, payTo)) - payToBefore, 5000n);
});

test("the 402's Solana offer names the development fee payer and a live blockhash hint from the pretend chain", async () => {
  const response = await fetch(`${service.url}/v1/macro/ecb/fx?pair=GBP`);
  assert.equal(response.status, 402);
  const accepts = ((await response.json()) as { accepts: PaymentRequirements[] }).accepts;
  const offer = accepts.find((a) => a.network === SOLANA.caip2);
  assert.equal(offer?.extra.feePayer, (await devSolanaFeePayer(service.dataDir)).address);
  assert.equal(offer?.payTo, (await devSolanaPayTo(service.dataDir)).address);
  const hint = offer?.extra.recentBlockhash as string;
  const lastValid = Number(offer?.extra.lastValidBlockHeight);
  assert.equal(blockhashProblem(SOLANA.caip2, hint, Date.now()), undefined);
  assert.equal(lastValid - (heightOfBlockhash(SOLANA.caip2, hint) as number), BLOCKHASH_VALID_BLOCKS);
  // Base's offer is untouched.
  assert.equal(accepts.find((a) => a.network === NETWORKS.base.caip2)?.extra.recentBlockhash, undefined);
});

test("LOCAL_SOLANA_FEE_PAYER_KEY: the 402 names that key as fee payer, and no development key is made", async () => {
  const key = await newSolanaSecretKey();
  const configured = await startTestService({
    NETWORKS: "solana",
    LOCAL_SOLANA_FEE_PAYER_KEY: key.secretKey,
  });
  try {
    const response = await fetch(`${configured.url}/v1/macro/ecb/fx?pair=GBP`);
    const accepts = ((await response.json()) as { accepts: PaymentRequirements[] }).accepts;
    assert.equal(accepts[0]?.extra.feePayer, key.address);
    assert.equal(fs.existsSync(path.join(configured.dataDir, "dev-solana-fee-payer.json")), false);
    assert.equal(JSON.stringify(configured.config.localSolanaFeePayerKey), '"[redacted]"');
  } finally {
    await configured.stop();
  }
});

test("a malformed LOCAL_SOLANA_FEE_PAYER_KEY stops the start naming it, without quoting it", async () => {
  const { secretKey } = await newSolanaSecretKey();
  const other = await newSolanaSecretKey();
  // The first 32 bytes of one key with the public half of another: base58 of 64 bytes, but not a key pair.
  const mismatched = getBase58Decoder().decode(
    Uint8Array.from([
      ...getBase58Encoder().encode(secretKey).slice(0, 32),
      ...getBase58Encoder().encode(other.secretKey).slice(32),
    ]),
  );
  for (const [value, reason] of [
    ["0OIl-not-base58", /must be a base58 Solana secret key \(64 bytes\), got characters outside base58/],
    [secretKey.slice(0, 40), /must be a base58 Solana secret key of 64 bytes, got \d+ bytes/],
    [mismatched, /is not a valid Solana key pair: its public half does not match its secret half/],
  ] as const) {
    await assert.rejects(
      startTestService({ NETWORKS: "solana", LOCAL_SOLANA_FEE_PAYER_KEY: value }),
      (error: Error) => {
        assert.equal((error as { variable?: string }).variable, "LOCAL_SOLANA_FEE_PAYER_KEY");
        assert.match(error.message, reason);
        assert.ok(!error.message.includes(value), "the key's characters are not in the message");
        return true;
      },
    );
  }
});
