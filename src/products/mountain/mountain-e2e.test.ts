// End to end over HTTP: the mountain family alone in a service (UPSTREAMS=replay, sample dataset), a real x402
// buyer paying through the local facilitator, free endpoints, and bad input on every mountain route.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  decodeBase64Json,
  newBuyer,
  payingFetch,
  startTestService,
  type TestService,
} from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { mountainFamily } from "./index.ts";

interface CatalogParameter {
  name: string;
  type: string;
  required: boolean;
  enum?: unknown[];
  aliasOf?: string;
}
interface CatalogProduct {
  sku: string;
  method: string;
  path: string;
  parameters: CatalogParameter[];
  example?: Record<string, string>;
  amount: string;
  mode: string;
}

let service: TestService;
let products: CatalogProduct[];

before(async () => {
  service = await startTestService({}, [mountainFamily(loadConfig({ UPSTREAMS: "replay" }))]);
  products = ((await (await fetch(`${service.url}/catalog.json`)).json()) as { products: CatalogProduct[] })
    .products;
});
after(() => service.stop());

async function json(path: string, init?: RequestInit) {
  const response = await fetch(`${service.url}${path}`, init);
  return { response, body: (await response.json()) as any };
}

describe("the mountain catalog", () => {
  it("lists every endpoint at the spec's price (atomic USDC)", () => {
    const amounts = Object.fromEntries(products.map((p) => [p.path, p.amount]));
    assert.deepEqual(amounts, {
      "/v1/food/menu": "10000",
      "/v1/food/near": "10000",
      "/v1/food/near-resort": "20000",
      "/v1/food/venues": "20000",
      "/v1/food/corridor": "10000",
      "/v1/food/status": "0",
      "/v1/ski/inventory": "10000",
      "/v1/ski/prices": "10000",
      "/v1/ski/resort": "10000",
      "/v1/ski/quote": "10000",
      "/v1/ski/operator": "50000",
      "/v1/ski/prices-bulk": "250000",
      "/v1/ski/status": "0",
      "/v1/ski/coverage": "0",
      "/v1/trip/map": "0",
      "/v1/insider-info": "1000000",
      "/v1/insider-info/early-openings": "1000000",
      "/v1/insider-info/status": "0",
    });
    const near = products.find((p) => p.path === "/v1/food/near")!;
    assert.deepEqual(
      near.parameters.map((p) => [p.name, p.type, p.required]),
      [
        ["lat", "number", true],
        ["lon", "number", true],
        ["radiusKm", "number", false],
        ["limit", "integer", false],
        ["type", "string", false],
      ],
    );
  });

  it("asks every paid route's example for payment (402) even before the OSM warmer has run", async () => {
    for (const product of products.filter((p) => p.mode === "paid")) {
      const query = new URLSearchParams(product.example ?? {}).toString();
      const response = await fetch(`${service.url}${product.path}?${query}`);
      assert.equal(response.status, 402, `${product.sku}: ${await response.clone().text()}`);
      const header = decodeBase64Json(response.headers.get("payment-required"));
      assert.equal((header.accepts as Array<{ amount: string }>)[0]?.amount, product.amount);
      await response.body?.cancel();
    }
  });
});

describe("paid and free calls", () => {
  before(async () => {
    await service.worker.runWarmer("mountain.osm");
  });

  it("a buyer pays 0.02 for /v1/food/near-resort and gets the near tier with menus, one ledger row", async () => {
    const buyer = newBuyer();
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
    const response = await payingFetch(buyer)(
      `${service.url}/v1/food/near-resort?country=ch&resort=sample-alpenrose`,
    );
    assert.equal(response.status, 200);
    const body = (await response.json()) as any;
    assert.equal(body.tier, "near");
    assert.equal(body.restaurants.length, 3);
    assert.equal(body.menus.length, 2);
    assert.match(
      body.otherTier.url,
      new RegExp(
        `^${service.config.publicUrl}/v1/food/near-resort\\?country=ch&resort=sample-alpenrose&tier=around$`,
      ),
    );
    assert.match(body.notice, /UPSTREAMS=replay/);
    assert.match(body.notice, /SAMPLE DATA, NOT REAL/);
    assert.match(body.notice, /© OpenStreetMap contributors/);
    const rows = await service.store.ledger.list();
    assert.equal(rows.length, 1);
    assert.deepEqual(
      [rows[0]?.sku, rows[0]?.state, rows[0]?.amount],
      ["food.near-resort", "settled", "20000"],
    );
  });

  it("nothing is charged for a 404 after payment: a menu-less restaurant", async () => {
    const buyer = newBuyer();
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
    const response = await payingFetch(buyer)(
      `${service.url}/v1/food/menu?restaurantId=osm-node-900000000003`,
    );
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as any).charged, false);
    assert.equal(await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address), 1_000_000n);
  });

  it("/v1/ski/prices with a country and no resort: 400 pointing to the bulk endpoint, no payment asked", async () => {
    const { response, body } = await json("/v1/ski/prices?country=ch");
    assert.equal(response.status, 400);
    assert.equal(response.headers.get("payment-required"), null);
    assert.equal(body.parameter, "resort");
    assert.match(body.message, /\/v1\/ski\/prices-bulk\?country=<cc>/);
  });

  it("an unknown resort is a 404 before payment, and a quote's unknown ticket type a 400 listing the allowed", async () => {
    const unknown = await json("/v1/ski/quote?country=ch&resort=nowhere&ticketType=1-day&ageBand=adult");
    assert.deepEqual([unknown.response.status, unknown.body.charged], [404, false]);
    const type = await json(
      "/v1/ski/quote?country=ch&resort=sample-alpenrose&ticketType=season&ageBand=adult",
    );
    assert.deepEqual(
      [type.response.status, type.body.parameter, type.body.allowed],
      [400, "ticketType", ["1-day", "6-day"]],
    );
    const bulk = await json("/v1/ski/prices-bulk?country=us");
    assert.deepEqual([bulk.response.status, bulk.body.parameter], [400, "state"]);
  });

  it("the free endpoints answer without payment; the free sample of food.near works", async () => {
    for (const path of [
      "/v1/ski/status",
      "/v1/ski/coverage",
      "/v1/ski/coverage?country=ch",
      "/v1/food/status",
      "/v1/trip/map?country=us&resort=sample-silver-peak",
      "/v1/insider-info/status",
      "/v1/food/near?lat=46.024&lon=7.748&sample=1",
    ]) {
      const { response, body } = await json(path);
      assert.equal(response.status, 200, path);
      assert.match(body.notice, /SAMPLE DATA, NOT REAL/, path);
    }
    assert.deepEqual((await json("/v1/ski/coverage?country=ch")).body.resortIds, ["sample-alpenrose"]);
  });
});

describe("bad input on every mountain route: 400 naming the parameter, before payment, never a 5xx", () => {
  async function expect400(product: CatalogProduct, params: URLSearchParams, names: string[], label: string) {
    const response = await fetch(`${service.url}${product.path}?${params}`);
    const body = (await response.json()) as any;
    assert.equal(response.status, 400, `${product.sku} ${label}: ${response.status} ${JSON.stringify(body)}`);
    assert.ok(names.includes(String(body.parameter)), `${product.sku} ${label}: names ${body.parameter}`);
    assert.equal(body.charged, false);
    assert.equal(response.headers.get("payment-required"), null);
  }
  const valid = (p: CatalogProduct) => new URLSearchParams(p.example ?? {});

  it("missing required, empty, over-long, wrongly typed, outside the enum, unknown and repeated", async () => {
    for (const product of products) {
      for (const parameter of product.parameters.filter((p) => p.required)) {
        const params = valid(product);
        params.delete(parameter.name);
        // With nothing left the request is an indexer's probe: a paid route answers its 402 (test/cold-probe.test.ts).
        if (params.size === 0 && product.mode === "paid") continue;
        await expect400(product, params, [parameter.name], `missing ${parameter.name}`);
      }
      for (const parameter of product.parameters) {
        const cases: Array<[string, string]> = [
          ["empty", ""],
          ["over-long", "x".repeat(3000)],
          ["spaces", "   "],
        ];
        if (parameter.type === "number" || parameter.type === "integer")
          cases.push(["wrong type", "not-a-number"], ["infinite", "1e309"]);
        if (parameter.enum) cases.push(["outside the enum", "no-such-value-zz"]);
        for (const [label, value] of cases) {
          const params = valid(product);
          if (parameter.aliasOf) params.delete(parameter.aliasOf);
          params.set(parameter.name, value);
          await expect400(
            product,
            params,
            [parameter.name, parameter.aliasOf ?? parameter.name],
            `${label} ${parameter.name}`,
          );
        }
      }
      const unknown = valid(product);
      unknown.set("nosuchparam", "1");
      await expect400(product, unknown, ["nosuchparam"], "unknown parameter");
    }
  });

  it("odd bytes in values never cause a 5xx", async () => {
    const nasty = [
      "%00",
      "%FF%FE",
      "%E2%80%AE",
      "'; drop table mountain_resorts; --",
      "../../etc/passwd",
      "-0",
      "NaN",
      "0x10",
    ];
    for (const product of products)
      for (const parameter of product.parameters)
        for (const value of nasty) {
          const response = await fetch(
            `${service.url}${product.path}?${valid(product)}&${parameter.name}=${value}`,
          );
          assert.ok(response.status < 500, `${product.sku} ${parameter.name}=${value}: ${response.status}`);
          await response.body?.cancel();
        }
  });

  it("specific values: radius above 10, a date that does not exist, a US state outside the US", async () => {
    const near = products.find((p) => p.path === "/v1/food/near")!;
    await expect400(
      near,
      new URLSearchParams({ lat: "46", lon: "7", radiusKm: "10.01" }),
      ["radiusKm"],
      "radius 10.01",
    );
    const quote = products.find((p) => p.path === "/v1/ski/quote")!;
    await expect400(
      quote,
      new URLSearchParams({ ...quote.example, date: "2027-02-30" }),
      ["date"],
      "30 February",
    );
    const resort = products.find((p) => p.path === "/v1/ski/resort")!;
    await expect400(
      resort,
      new URLSearchParams({ country: "ch", resort: "sample-alpenrose", state: "CO" }),
      ["state"],
      "state outside the US",
    );
  });
});
