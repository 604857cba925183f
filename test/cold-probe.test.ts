// The cold probe: a paid route called with no parameters at all answers its 402 (price, input schema, example,
// free sample), as indexers and agents expect; parameters present but wrong still get the 400 before payment;
// a paid retry of a bare request is verified, answered with the 400 and never settled.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { decodeBase64Json, newBuyer, payingFetch, startTestService, type TestService } from "./harness.ts";

let service: TestService;

before(async () => {
  service = await startTestService({});
});
after(() => service.stop());

function bazaarOf(header: Record<string, any>) {
  return (header.extensions as Record<string, any>).bazaar;
}

test("GET with an empty query: the route's 402 with the input schema, an example and the free sample", async () => {
  for (const path of ["/v1/macro/ecb/fx", "/v1/macro/ecb/fx?"]) {
    const response = await fetch(`${service.url}${path}`);
    assert.equal(response.status, 402, path);
    const header = decodeBase64Json(response.headers.get("payment-required"));
    assert.equal(header.x402Version, 2);
    // exact, and batch-settlement for this price fixed per call (the local facilitator settles both).
    assert.deepEqual(
      (header.accepts as Array<{ scheme: string }>).map((a) => a.scheme),
      ["exact", "batch-settlement"],
    );
    const bazaar = bazaarOf(header);
    assert.deepEqual(bazaar.info.input.queryParams, { pair: "USD" }, "an example the agent can send");
    assert.deepEqual(bazaar.schema.properties.input.properties.queryParams.required, ["pair"]);
    const body = (await response.json()) as Record<string, unknown>;
    assert.match(String(body.freeSample), /\/v1\/macro\/ecb\/fx\?pair=USD&sample=1$/);
  }
});

test("POST with no body or {}: the route's 402; a body that misses a field: the 400 naming it", async () => {
  for (const body of [undefined, "{}", " { } "]) {
    const response = await fetch(`${service.url}/v1/doctor/payment`, {
      method: "POST",
      ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
    });
    assert.equal(response.status, 402, `body ${JSON.stringify(body)}`);
    const header = decodeBase64Json(response.headers.get("payment-required"));
    assert.ok(bazaarOf(header).info.input.body, "the example body travels with the 402");
  }
  const partial = await fetch(`${service.url}/v1/doctor/payment`, {
    method: "POST",
    body: JSON.stringify({ url: "https://api.example.com/v1/data" }),
    headers: { "content-type": "application/json" },
  });
  assert.equal(partial.status, 400);
  assert.equal(((await partial.json()) as { parameter: string }).parameter, "response");
});

test("parameters present but one missing or invalid: 400 naming it, no payment asked", async () => {
  const cases: Array<[string, string]> = [
    ["/v1/ski/prices?country=ch", "resort"],
    ["/v1/macro/ecb/fx?pair=", "pair"],
    ["/v1/macro/ecb/fx?sample=2", "sample"],
    ["/v1/macro/ecb/fx?nosuch=1", "nosuch"],
  ];
  for (const [path, parameter] of cases) {
    const response = await fetch(`${service.url}${path}`);
    assert.equal(response.status, 400, path);
    assert.equal(response.headers.get("payment-required"), null, path);
    const body = (await response.json()) as { parameter: string; charged: boolean };
    assert.deepEqual([body.parameter, body.charged], [parameter, false], path);
  }
});

test("a free route called bare answers as before (its own 400 or its answer), never a 402", async () => {
  const response = await fetch(`${service.url}/v1/macro/ecb/status`);
  assert.equal(response.status, 200);
});

test("a paid retry of a bare request is verified, answered with the 400 and never settled", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const before = await balance();
  const rowsBefore = (await service.store.ledger.list()).length;

  const response = await payingFetch(buyer)(`${service.url}/v1/macro/ecb/fx`);
  assert.equal(response.status, 400);
  assert.equal(response.headers.get("payment-response"), null, "no settlement receipt");
  const body = (await response.json()) as { parameter: string; charged: boolean };
  assert.deepEqual([body.parameter, body.charged], ["pair", false]);
  assert.equal(await balance(), before, "the buyer's balance is untouched");
  assert.equal((await service.store.ledger.list()).length, rowsBefore, "no ledger row stays");
});

test("a bare request whose data is not there yet still gets the 402; its paid retry gets the 4xx, unsettled", async () => {
  // No trade has been collected in this test service: /v1/market/quotes has nothing to answer yet.
  const bare = await fetch(`${service.url}/v1/market/quotes`);
  assert.equal(bare.status, 402);
  await bare.arrayBuffer();
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const before = await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const paid = await payingFetch(buyer)(`${service.url}/v1/market/quotes`);
  assert.ok(paid.status >= 400 && paid.status < 500 && paid.status !== 402, `got ${paid.status}`);
  assert.equal(((await paid.json()) as { charged: boolean }).charged, false);
  assert.equal(await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address), before);
});
