// Control characters and bidirectional overrides in any parameter: 400 naming it, before payment, on every
// paid GET route of the catalog and in the doctor's pasted text.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestService, type TestService } from "./harness.ts";

interface CatalogProduct {
  sku: string;
  method: string;
  path: string;
  mode: string;
  parameters: Array<{ name: string; aliasOf?: string }>;
  example?: Record<string, string>;
}

let service: TestService;
let products: CatalogProduct[];

before(async () => {
  service = await startTestService({ SALE_DOMAIN: "paycall.example" });
  products = ((await (await fetch(`${service.url}/catalog.json`)).json()) as { products: CatalogProduct[] })
    .products;
});
after(() => service.stop());

const HOSTILE = ["abc\u0000def", "invoice\u202egpj.exe", "a\u0007b", "x\u2066y"];

test("a control character in any parameter of a paid GET route is a 400 naming it, with no 402", async () => {
  const paid = products.filter((p) => p.mode === "paid" && p.method === "GET" && p.example);
  assert.ok(paid.length > 10);
  for (const product of paid) {
    const name = Object.keys(product.example ?? {})[0];
    if (!name) continue;
    for (const hostile of HOSTILE) {
      const params = new URLSearchParams({ ...product.example, [name]: hostile });
      const response = await fetch(`${service.url}${product.path}?${params}`);
      const body = (await response.json()) as { parameter?: string; charged?: boolean; message?: string };
      assert.equal(response.status, 400, `${product.sku} ${name}=${JSON.stringify(hostile)}`);
      assert.equal(response.headers.get("payment-required"), null);
      assert.equal(body.parameter, name, product.sku);
      assert.equal(body.charged, false);
      assert.match(body.message ?? "", /control characters/);
    }
  }
});

test("the doctor's pasted error text refuses NUL and bidirectional overrides, and keeps line breaks", async () => {
  const post = (response: string) =>
    fetch(`${service.url}/v1/doctor/payment`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ response }),
    });
  const refused = await post("invalid_exact_evm_payload_signature\u0000");
  assert.equal(refused.status, 400);
  assert.equal(((await refused.json()) as { parameter?: string }).parameter, "response");
  const bidi = await post("error \u202e");
  assert.equal(bidi.status, 400);
  const multiline = await post("HTTP 402\ninvalid_exact_evm_payload_signature");
  assert.equal(multiline.status, 402, "pasted text with line breaks is a valid request");
});
