// With a remote facilitator that settles Solana, each 402 offers one accepts entry per network.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { decodeBase64Json, startTestService, type TestService } from "./harness.ts";
import { SOLANA_FEE_PAYER, type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";

const PAY_TO_SOLANA = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
let stub: StubFacilitator;
let service: TestService;

before(async () => {
  stub = await startStubFacilitator();
  service = await startTestService({
    NETWORKS: "base,solana",
    FACILITATOR_URL: stub.url,
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    PAY_TO_SOLANA,
  });
});
after(async () => {
  await service.stop();
  await stub.close();
});

test("the 402 offers USDC on Base and on Solana, each with its own pay-to", async () => {
  const response = await fetch(`${service.url}/v1/macro/ecb/fx?pair=USD`);
  assert.equal(response.status, 402);
  const accepts = decodeBase64Json(response.headers.get("payment-required")).accepts as Array<
    Record<string, any>
  >;
  assert.equal(accepts.length, 2);
  const [base, solana] = accepts;
  assert.equal(base?.network, "eip155:8453");
  assert.equal(base?.payTo, "0x00000000000000000000000000000000000000aa");
  assert.equal(solana?.network, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp");
  assert.equal(solana?.asset, "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
  assert.equal(solana?.amount, "5000");
  assert.equal(solana?.payTo, PAY_TO_SOLANA);
  assert.equal(solana?.extra?.feePayer, SOLANA_FEE_PAYER);
});

test("/health and the catalog list both networks", async () => {
  const health = (await (await fetch(`${service.url}/health`)).json()) as {
    networks: string[];
    mode: { facilitator: string };
  };
  assert.deepEqual(health.networks, ["eip155:8453", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"]);
  assert.equal(health.mode.facilitator, "remote");
  assert.equal((health as { notice?: string }).notice, undefined);
});
