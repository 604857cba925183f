// paycall as indexers see it, judged by their own tool: @agentcash/discovery (the OpenAPI-first discovery
// runtime x402scan and agentcash use) against the running service, with both EVM networks offered and a public
// origin, as a seller deploys it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  checkEndpointSchema,
  checkL2ForOpenAPI,
  checkL4ForOpenAPI,
  discoverOriginSchema,
  getL3ForOpenAPI,
  getOpenAPI,
  getWarningsForFavicon,
  getWarningsForL2,
  getWarningsForL3,
  getWarningsForL4,
  getWarningsForOpenAPI,
  type OpenApiSource,
  validatePaymentRequiredDetailed,
} from "@agentcash/discovery";
import { verifyMessage } from "viem";
import { OTHER_HEAD_BYTES, RESPONSE_HEAD_LIMIT } from "../src/x402/seller/challenge.ts";
import { decodeBase64Json, startListeningService, type TestService } from "./harness.ts";

const PUBLIC_URL = "https://api.paycall-example.org";
/** What PAYMENT-REQUIRED may take of a 4 KB response head (nginx's default proxy buffer). */
const HEADER_LIMIT = RESPONSE_HEAD_LIMIT - OTHER_HEAD_BYTES;

let service: TestService;
let catalog: {
  products: Array<{ sku: string; method: string; path: string; mode: string; example?: object }>;
};

before(async () => {
  // A listener: indexers probe with any method (TRACE among them), which only the wire carries.
  service = await startListeningService({ PUBLIC_URL, NETWORKS: "base,base-sepolia" });
  catalog = (await (await fetch(`${service.url}/catalog.json`)).json()) as typeof catalog;
});
after(() => service.stop());

async function openApi(url?: string): Promise<OpenApiSource> {
  const result = await getOpenAPI(service.url, undefined, undefined, url);
  assert.ok(
    result.isOk() && result.value && !("parseFailure" in result.value),
    `OpenAPI ${url ?? ""} parses`,
  );
  return result.value as OpenApiSource;
}

const codes = (warnings: Array<{ code: string }>) => warnings.map((w) => w.code);

test("discovery finds every route of the catalog, the paid ones with their price and x402", async () => {
  const found = await discoverOriginSchema({ target: service.url });
  assert.ok(found.found);
  assert.equal(found.endpoints.length, catalog.products.length);
  const paid = found.endpoints.filter((e) => e.authMode === "paid");
  assert.equal(paid.length, catalog.products.filter((p) => p.mode === "paid").length);
  for (const endpoint of paid) {
    assert.ok(endpoint.price, `${endpoint.path} has a price`);
    assert.deepEqual(endpoint.protocols, ["x402"], endpoint.path);
  }
  assert.ok(found.guidanceAvailable, "info.x-guidance is read");
});

test("the audits find nothing on any route; the whole document's only note is its size, each section none", async () => {
  const spec = await openApi();
  assert.deepEqual(codes(getWarningsForOpenAPI(spec)), []);
  assert.deepEqual(codes(getWarningsForL2(checkL2ForOpenAPI(spec))), ["L2_ROUTE_COUNT_HIGH"]);
  assert.deepEqual(codes(getWarningsForL4(checkL4ForOpenAPI(spec))), []);
  assert.deepEqual(codes((await getWarningsForFavicon(service.url))._unsafeUnwrap()), []);
  for (const route of spec.routes) {
    const warnings = getWarningsForL3(getL3ForOpenAPI(spec, route.path, route.method));
    assert.deepEqual(codes(warnings), [], `${route.method} ${route.path}`);
  }
  const sections = (spec.raw as { "x-openapi-sections": Record<string, string> })["x-openapi-sections"];
  let listed = 0;
  for (const [name, url] of Object.entries(sections)) {
    const section = await openApi(url.replace(PUBLIC_URL, service.url));
    listed += section.routes.length;
    const warnings = [...getWarningsForOpenAPI(section), ...getWarningsForL2(checkL2ForOpenAPI(section))];
    assert.deepEqual(codes(warnings), [], `section ${name}`);
  }
  assert.ok(listed >= catalog.products.filter((p) => p.mode === "paid").length);
});

test("the probe an indexer sends (no query; {} for POST) finds a valid x402 v2 challenge on every paid route", async () => {
  const paid = catalog.products.filter((p) => p.mode === "paid");
  const missing: string[] = [];
  for (const product of paid) {
    const checked = await checkEndpointSchema({
      url: `${service.url}${product.path}`,
      probe: true,
      ...(product.method === "POST" ? { sampleInputBody: {} } : {}),
    });
    assert.ok(checked.found, product.path);
    const advisory = checked.advisories.find((a) => a.method === product.method);
    if (!advisory?.paymentOptions?.some((o) => o.protocol === "x402" && o.version === 2)) {
      missing.push(`${product.method} ${product.path}`);
      continue;
    }
    assert.deepEqual(codes(getWarningsForL3(advisory)), [], product.path);
    const validation = validatePaymentRequiredDetailed(advisory.paymentRequiredBody);
    assert.ok(validation.valid, `${product.path}: ${JSON.stringify(validation.issues)}`);
  }
  assert.deepEqual(missing, [], "every paid route answers its probe with a payment challenge");
});

test("PAYMENT-REQUIRED stays within a 4 KB head on every paid route with two networks, bare and with its example", async () => {
  let largest = 0;
  for (const product of catalog.products.filter((p) => p.mode === "paid")) {
    const urls = [`${service.url}${product.path}`];
    if (product.method === "GET" && product.example) {
      urls.push(
        `${service.url}${product.path}?${new URLSearchParams(product.example as Record<string, string>)}`,
      );
    }
    for (const url of urls) {
      const response = await fetch(url, { method: product.method });
      await response.arrayBuffer();
      if (response.status !== 402) continue;
      const header = response.headers.get("payment-required") ?? "";
      largest = Math.max(largest, header.length);
      assert.ok(header.length <= HEADER_LIMIT, `${url}: ${header.length} bytes`);
      const decoded = decodeBase64Json(header);
      const networks = new Set((decoded.accepts as Array<{ network: string }>).map((a) => a.network));
      assert.equal(networks.size, 2, "both networks offered");
    }
  }
  assert.ok(largest > 0);
});

test("every 402 names the service (Bazaar metadata) and the origin proves the pay-to address", async () => {
  const response = await fetch(`${service.url}/v1/macro/ecb/fx`);
  const header = decodeBase64Json(response.headers.get("payment-required"));
  const resource = header.resource as Record<string, unknown>;
  assert.equal(resource.serviceName, "paycall");
  assert.deepEqual(resource.tags, ["macro", "fx", "ecb"]);
  assert.equal(resource.iconUrl, `${PUBLIC_URL}/favicon.svg`);

  const wellKnown = (await (await fetch(`${service.url}/.well-known/x402`)).json()) as {
    ownershipProofs: string[];
  };
  const [proof] = wellKnown.ownershipProofs as `0x${string}`[];
  const payTo = (header.accepts as Array<{ payTo: `0x${string}` }>)[0]?.payTo as `0x${string}`;
  assert.ok(await verifyMessage({ address: payTo, message: PUBLIC_URL, signature: proof as `0x${string}` }));
  const icon = await fetch(`${service.url}/favicon.svg`);
  assert.equal(icon.headers.get("content-type"), "image/svg+xml");
  assert.match(await icon.text(), /^<svg /);
});
