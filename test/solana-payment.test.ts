// A Solana buyer pays with an unmodified @x402/svm exact client (its own ExactSvmScheme and x402Client, its RPC
// pointed at the local facilitator's pretend Solana RPC) against a service with NETWORKS=base,solana and no
// FACILITATOR_URL: the local facilitator verifies and settles on the pretend ledger.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { devSolanaPayTo } from "../src/x402/facilitator/dev-wallets.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { startTestService, type TestService } from "./harness.ts";

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
