// End to end on loopback: a real x402 buyer pays through the HTTP local facilitator.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { newBuyer, payingFetch, startTestService, type TestService } from "./harness.ts";

let service: TestService;

before(async () => {
  service = await startTestService({ SALE_DOMAIN: "paycall.example" });
  await service.worker.runWarmer("ecb.fx");
});
after(() => service.stop());

test("a buyer pays /v1/macro/ecb/fx?pair=USD and gets the rate, a receipt and one ledger row", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const before = await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);

  const response = await payingFetch(buyer)(`${service.url}/v1/macro/ecb/fx?pair=USD`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<string, unknown>;
  for (const field of [
    "ok",
    "pair",
    "base",
    "quote",
    "currency",
    "latest",
    "count",
    "observations",
    "source",
    "fetchedAt",
  ]) {
    assert.ok(field in body, `answer has ${field}`);
  }
  assert.equal(body.pair, "EURUSD");
  assert.equal(body.base, "EUR");

  const receipt = decodePaymentResponseHeader(response.headers.get("payment-response") as string);
  assert.equal(receipt.success, true);
  assert.equal(receipt.network, "eip155:8453");
  assert.match(receipt.transaction, /^0x[0-9a-f]{64}$/);

  const rows = await service.store.ledger.list();
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.sku, "macro.ecb.fx");
  assert.equal(rows[0]?.state, "settled");
  assert.equal(rows[0]?.amount, "5000");
  assert.equal(rows[0]?.transaction, receipt.transaction);
  assert.equal(rows[0]?.payer?.toLowerCase(), buyer.address.toLowerCase());

  const afterBalance = await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  assert.equal(before - afterBalance, 5000n);
});

test("a buyer without funds is refused with 402 and gets no data", async () => {
  const response = await payingFetch(newBuyer())(`${service.url}/v1/macro/ecb/fx?pair=GBP`);
  assert.equal(response.status, 402);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.observations, undefined);
  assert.match(String(body.error), /insufficient/);
});

test("the domain sale records the sale once the payment settles", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "50000");
  const { x402Client, wrapFetchWithPayment } = await import("@x402/fetch");
  const { ExactEvmScheme } = await import("@x402/evm/exact/client");
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(buyer)).setSpendControls(false);
  const response = await wrapFetchWithPayment(
    fetch,
    client,
  )(`${service.url}/v1/domain/sale?domain=paycall.example`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.status, "payment_received_transfer_pending");
  assert.equal(body.transfer, "manual_or_escrow");
  assert.equal(body.priceUsdc, 50000);
  const sales = await service.store.sales.list();
  assert.equal(sales.length, 1);
  assert.equal(sales[0]?.payer?.toLowerCase(), buyer.address.toLowerCase());
  assert.equal(sales[0]?.price_usdc, "50000000000");
});

test("the domain sale refuses any other domain before payment", async () => {
  const response = await fetch(`${service.url}/v1/domain/sale?domain=other.example`);
  assert.equal(response.status, 400);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.parameter, "domain");
  assert.equal(response.headers.get("payment-required"), null);
});

test("/health says the facilitator is local and no real money moves", async () => {
  const body = (await (await fetch(`${service.url}/health`)).json()) as Record<string, unknown>;
  assert.deepEqual(body.mode, { facilitator: "local", upstreams: "replay", store: service.store.kind });
  assert.match(String(body.notice), /No real money moves/);
});

test("/admin/ledger needs the admin token and lists settlements with totals", async () => {
  const admin = await startTestService({ ADMIN_TOKEN: "a-long-admin-token-123" });
  try {
    const buyer = newBuyer();
    await creditWallet(admin.store, NETWORKS.base, buyer.address, "1");
    await admin.worker.runWarmer("ecb.fx");
    assert.equal((await payingFetch(buyer)(`${admin.url}/v1/macro/ecb/fx?pair=USD`)).status, 200);
    assert.equal((await fetch(`${admin.url}/admin/ledger`)).status, 404);
    assert.equal(
      (await fetch(`${admin.url}/admin/ledger`, { headers: { authorization: "Bearer wrong-token-xxxxxxx" } }))
        .status,
      404,
    );
    const response = await fetch(`${admin.url}/admin/ledger`, {
      headers: { authorization: "Bearer a-long-admin-token-123" },
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      totals: Array<{ state: string; count: number; atomic: string }>;
      rows: Array<Record<string, unknown>>;
    };
    assert.deepEqual(body.totals, [{ state: "settled", count: 1, atomic: "5000" }]);
    assert.equal(body.rows.length, 1);
    assert.equal(body.rows[0]?.payment_payload, undefined);
  } finally {
    await admin.stop();
  }
});
