// Every paid route's 402 carries a Bazaar declaration that the SDK's own validator accepts (what a
// facilitator runs before listing a resource): examples satisfy the schemas' bounds and types.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { extractDiscoveryInfoFromExtension } from "@x402/extensions/bazaar";
import { type CatalogProduct, paidProducts, startTestService, type TestService } from "./harness.ts";

let service: TestService;
let products: CatalogProduct[];

before(async () => {
  service = await startTestService({ SALE_DOMAIN: "paycall.example" });
  await service.worker.runWarmer("ecb.fx");
  products = await paidProducts(service.url);
});
after(() => service.stop());

test("the Bazaar declaration in every paid route's 402 passes the SDK's validator", async () => {
  const warn = console.warn;
  console.warn = () => {}; // the validator's schema compiler warns about formats it does not know
  const checked: string[] = [];
  const invalid: string[] = [];
  try {
    for (const product of products) {
      const query = product.example ? `?${new URLSearchParams(product.example)}` : "";
      const response = await fetch(`${service.url}${product.path}${query}`, {
        method: product.method,
        ...(product.method === "POST"
          ? {
              headers: { "content-type": "application/json" },
              body: JSON.stringify(product.exampleBody ?? {}),
            }
          : {}),
      });
      const header = response.headers.get("payment-required");
      if (response.status !== 402 || !header) continue;
      checked.push(product.sku);
      const required = decodePaymentRequiredHeader(header) as { extensions?: Record<string, unknown> };
      try {
        extractDiscoveryInfoFromExtension(required.extensions?.bazaar as never, true);
      } catch (error) {
        invalid.push(`${product.sku}: ${String(error).slice(0, 300)}`);
      }
    }
  } finally {
    console.warn = warn;
  }
  assert.ok(checked.length >= 30, `only ${checked.length} routes answered 402: ${checked.join(", ")}`);
  assert.ok(checked.includes("llm.chat") && checked.includes("food.near"), checked.join(", "));
  assert.deepEqual(invalid, []);
});
