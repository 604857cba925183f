// One payment, one delivery; free samples equal the paid answer and are limited per client.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { clientKey } from "../src/x402/seller/samples.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { newBuyer, payingFetch, signedPaymentHeader, startTestService, type TestService } from "./harness.ts";

let service: TestService;

before(async () => {
  service = await startTestService({ SAMPLES_PER_HOUR: "3" });
  await service.worker.runWarmer("ecb.fx");
});
after(() => service.stop());

test("20 concurrent requests with one payment header give exactly one 200 and one ledger row", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const url = `${service.url}/v1/macro/ecb/fx?pair=CHF`;
  const header = await signedPaymentHeader(buyer, url);
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => fetch(url, { headers: { "payment-signature": header } })),
  );
  const statuses = responses.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(",")}`);
  assert.equal(statuses.filter((s) => s === 402).length, 19);
  const refused = await Promise.all(
    responses
      .filter((r) => r.status === 402)
      .map((r) => r.json() as Promise<{ error: string; observations?: unknown }>),
  );
  assert.ok(refused.every((b) => b.error === "payment_already_used" && b.observations === undefined));
  const rows = (await service.store.ledger.list()).filter(
    (r) => r.state === "settled" && r.payer?.toLowerCase() === buyer.address.toLowerCase(),
  );
  assert.equal(rows.length, 1);
  assert.equal(await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address), 1_000_000n - 5000n);

  const later = await fetch(url, { headers: { "payment-signature": header } });
  assert.equal(later.status, 402);
  assert.equal(((await later.json()) as { error: string }).error, "payment_already_used");
});

test("the free sample answers exactly what a buyer of that request gets", async () => {
  const sample = await fetch(`${service.url}/v1/macro/ecb/fx?pair=USD&sample=1`);
  assert.equal(sample.status, 200);
  const free = await sample.json();
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const paid = await payingFetch(buyer)(`${service.url}/v1/macro/ecb/fx?pair=USD`);
  assert.equal(paid.status, 200);
  assert.deepEqual(await paid.json(), free);
});

test("sample=1 on any other request is an ordinary paid request", async () => {
  const response = await fetch(`${service.url}/v1/macro/ecb/fx?pair=GBP&sample=1`);
  assert.equal(response.status, 402);
  assert.ok(response.headers.get("payment-required"));
});

test("the 402 names the free sample", async () => {
  const body = (await (await fetch(`${service.url}/v1/macro/ecb/fx?pair=GBP`)).json()) as {
    freeSample: string;
  };
  assert.equal(body.freeSample, `${service.config.publicUrl}/v1/macro/ecb/fx?pair=USD&sample=1`);
});

test("the sample limit holds: after the hourly allowance, 429 with Retry-After", async () => {
  // An earlier test of this file used one sample already; the limit is 3 an hour.
  const statuses: number[] = [];
  let last: Response | undefined;
  for (let i = 0; i < 4; i++) {
    last = await fetch(`${service.url}/v1/macro/ecb/fx?pair=USD&sample=1`);
    statuses.push(last.status);
  }
  assert.deepEqual(statuses, [200, 200, 429, 429]);
  const retryAfter = Number(last?.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 3600);
  const body = (await last?.json()) as { error: string; charged: boolean };
  assert.equal(body.error, "sample_limit");
  assert.equal(body.charged, false);
});

test("client addresses: IPv6 counted by /64, IPv4-mapped as IPv4", () => {
  assert.equal(clientKey("2001:db8:1:2:3:4:5:6"), clientKey("2001:db8:1:2:ffff::1"));
  assert.notEqual(clientKey("2001:db8:1:2::1"), clientKey("2001:db8:1:3::1"));
  assert.equal(clientKey("::ffff:10.1.2.3"), "10.1.2.3");
  assert.equal(clientKey("10.1.2.3"), "10.1.2.3");
});
