// Bad input on every route in the catalog: 400 naming the parameter, before payment, never a 5xx.
// The routes come from /catalog.json, so every family added later is swept too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestService, type TestService } from "./harness.ts";

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
  mode: string;
}

let service: TestService;
let products: CatalogProduct[];

before(async () => {
  service = await startTestService({ SALE_DOMAIN: "paycall.example" });
  await service.worker.runWarmer("ecb.fx");
  products = ((await (await fetch(`${service.url}/catalog.json`)).json()) as { products: CatalogProduct[] })
    .products;
});
after(() => service.stop());

async function expect400(product: CatalogProduct, params: URLSearchParams, names: string[], label: string) {
  const response = await fetch(`${service.url}${product.path}?${params}`, { method: product.method });
  const body = (await response.json()) as {
    error?: string;
    parameter?: string;
    charged?: boolean;
    message?: string;
  };
  assert.equal(
    response.status,
    400,
    `${product.sku} ${label}: expected 400, got ${response.status} ${JSON.stringify(body)}`,
  );
  assert.ok(
    names.includes(String(body.parameter)),
    `${product.sku} ${label}: names ${body.parameter}, expected one of ${names}`,
  );
  assert.equal(body.charged, false);
  assert.ok(body.message && body.message.length > 0);
  assert.equal(
    response.headers.get("payment-required"),
    null,
    `${product.sku} ${label}: no payment is requested`,
  );
}

function validQuery(product: CatalogProduct): URLSearchParams {
  const required = product.parameters.filter((p) => p.required);
  if (required.length > 0)
    assert.ok(product.example, `${product.sku}: declare a sample or an example request`);
  return new URLSearchParams(product.example ?? {});
}

test("the catalog lists products to sweep", () => {
  assert.ok(products.length >= 3, `catalog has ${products.length} products`);
});

test("missing required parameters give 400 naming them", async () => {
  for (const product of products) {
    for (const parameter of product.parameters.filter((p) => p.required)) {
      const params = validQuery(product);
      params.delete(parameter.name);
      // With nothing left the request is an indexer's probe: a paid route answers its 402 (cold-probe.test.ts).
      if (params.size === 0 && product.mode === "paid" && product.method === "GET") continue;
      await expect400(product, params, [parameter.name], `missing ${parameter.name}`);
    }
  }
});

test("empty, over-long and wrongly typed values give 400 naming the parameter", async () => {
  for (const product of products) {
    for (const parameter of product.parameters) {
      const names = [parameter.name, parameter.aliasOf ?? parameter.name];
      const cases: Array<[string, string]> = [
        ["empty", ""],
        ["over-long", "x".repeat(3000)],
      ];
      if (parameter.type === "number" || parameter.type === "integer")
        cases.push(["wrong type", "not-a-number"]);
      if (parameter.enum) cases.push(["outside the enum", "no-such-value-zz"]);
      for (const [label, value] of cases) {
        const params = validQuery(product);
        if (parameter.aliasOf) params.delete(parameter.aliasOf);
        params.set(parameter.name, value);
        await expect400(product, params, names, `${label} ${parameter.name}`);
      }
    }
  }
});

test("unknown and repeated parameters give 400 naming them", async () => {
  for (const product of products) {
    const unknown = validQuery(product);
    unknown.set("nosuchparam", "1");
    await expect400(product, unknown, ["nosuchparam"], "unknown parameter");
    const first = product.parameters[0];
    if (first) {
      const repeated = validQuery(product);
      repeated.append(first.name, "a");
      repeated.append(first.name, "b");
      await expect400(product, repeated, [first.name], "repeated parameter");
    }
  }
});

test("odd bytes in values never cause a 5xx", async () => {
  const nasty = [
    "%00",
    "%FF%FE",
    "%E2%80%AE",
    "'; drop table ledger; --",
    "../../etc/passwd",
    "%F0%9F%92%A9",
    "1e309",
    "-0",
  ];
  for (const product of products) {
    for (const parameter of product.parameters) {
      for (const value of nasty) {
        const query = validQuery(product).toString();
        const response = await fetch(`${service.url}${product.path}?${query}&${parameter.name}=${value}`);
        assert.ok(response.status < 500, `${product.sku} ${parameter.name}=${value}: ${response.status}`);
        await response.body?.cancel();
      }
    }
  }
});

test("unknown routes answer 404 JSON", async () => {
  const response = await fetch(`${service.url}/v1/nope`);
  assert.equal(response.status, 404);
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
});

test("a filter with a known value set refuses a value that can never match, before payment", async () => {
  const bulk = products.find((p) => p.path === "/v1/ski/prices-bulk");
  assert.ok(bulk);
  for (const region of ["NaN", "no such region"]) {
    await expect400(bulk, new URLSearchParams({ country: "at", region }), ["region"], `region=${region}`);
  }
  const known = await fetch(`${service.url}/v1/ski/prices-bulk?country=at&region=Tirol`);
  assert.equal(known.status, 402, "a region on file is priced as before");
});
