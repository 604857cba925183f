// Discovery documents: the OpenAPI validates, and catalog, well-known, OpenAPI and the live 402 agree.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { catalogVersion, describeProduct } from "../src/catalog/describe.ts";
import { loadConfig } from "../src/config.ts";
import { buildFamilies } from "../src/service.ts";
import { usdToAtomic } from "../src/x402/shared/money.ts";
import { decodeBase64Json, startTestService, type TestService } from "./harness.ts";

let service: TestService;
const get = async (path: string) =>
  (await fetch(`${service.url}${path}`)).json() as Promise<Record<string, any>>;

let backgroundTasks: Array<{ stop: () => Promise<void> }> = [];

before(async () => {
  service = await startTestService({ SALE_DOMAIN: "paycall.example", NETWORKS: "base,base-sepolia" });
  // Stream collectors (market ticks) replay their recordings, so every paid route has data to sell.
  backgroundTasks = buildFamilies(service.config).flatMap((f) =>
    (f.background ?? []).map((task) => task.start(service.ctx)),
  );
  const deadline = Date.now() + 10_000;
  while (
    (await fetch(`${service.url}/v1/market/quote?symbol=BTCUSDT`)).status !== 402 &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});
after(async () => {
  await Promise.all(backgroundTasks.map((task) => task.stop()));
  await service.stop();
});

test("/openapi.json is a valid OpenAPI 3.1 document, version 1.0.0", async () => {
  const openapi = await get("/openapi.json");
  const result = await new Validator().validate(openapi);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(openapi.openapi, "3.1.0");
  assert.equal(openapi.info.version, "1.0.0");
});

/** An operation's price as the catalog states it: USD and atomic USDC ("0 0" for a free route). */
function priceOf(info: any): string {
  if (!info) return "0 0";
  assert.deepEqual(Object.keys(info.protocols[0]), ["x402"]);
  const usd = info.price.mode === "fixed" ? info.price.amount : info.price.min;
  return `${usd} ${info.protocols[0].x402.amount ?? usdToAtomic(usd).toString()}`;
}

test("catalog, OpenAPI and /.well-known/x402 list the same routes and prices", async () => {
  const [catalog, openapi, wellKnown] = await Promise.all([
    get("/catalog.json"),
    get("/openapi.json"),
    get("/.well-known/x402"),
  ]);
  const fromCatalog = catalog.products
    .map((p: any) => `${p.method} ${p.path} ${p.priceUsd} ${p.amount}`)
    .sort();
  const fromOpenApi = Object.entries(openapi.paths as Record<string, Record<string, any>>)
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(
        ([method, op]) => `${method.toUpperCase()} ${path} ${priceOf(op["x-payment-info"])}`,
      ),
    )
    .sort();
  assert.deepEqual(fromOpenApi, fromCatalog);

  const paid = catalog.products.filter((p: any) => p.mode === "paid");
  assert.deepEqual(
    wellKnown.resources,
    paid.map((p: any) => p.url),
  );
  assert.deepEqual(
    wellKnown.items.map((i: any) => `${i.method} ${i.resource} ${i.priceUsd} ${i.amount} ${i.freeSample}`),
    paid.map((p: any) => `${p.method} ${p.url} ${p.priceUsd} ${p.amount} ${p.freeSampleUrl}`),
  );
  assert.equal(wellKnown.version, 1);
  assert.equal(wellKnown.x402Version, 2);
});

test("every paid route's live 402 matches its catalog entry and declares Bazaar discovery", async () => {
  const catalog = await get("/catalog.json");
  for (const product of catalog.products.filter((p: any) => p.mode === "paid")) {
    const query = new URLSearchParams(product.example ?? {}).toString();
    const search = query ? `?${query}` : "";
    const response = await fetch(`${service.url}${product.path}${search}`, {
      method: product.method,
      ...(product.exampleBody !== undefined
        ? { headers: { "content-type": "application/json" }, body: JSON.stringify(product.exampleBody) }
        : {}),
    });
    assert.equal(response.status, 402, product.sku);
    assert.equal(response.headers.get("cache-control"), "no-store");
    // Node's fetch (undici) refuses responses whose headers pass 16 KB; buyers must be able to read ours
    // (the Bazaar declaration, the signed offers and the payment-identifier declaration are most of it).
    const headerBytes = [...response.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    assert.ok(headerBytes < 15_000, `${product.sku}: ${headerBytes} bytes of headers`);
    const header = decodeBase64Json(response.headers.get("payment-required"));
    assert.equal(header.x402Version, 2);
    const accepts = header.accepts as Array<Record<string, any>>;
    assert.deepEqual(
      accepts.filter((a) => a.scheme === "exact").map((a) => a.network),
      ["eip155:8453", "eip155:84532"],
    );
    // After exact, a product sold by use also offers upto, one priced per call batch-settlement (the local
    // facilitator settles both), and the catalog says so; a dynamic price offers exact alone.
    const others = accepts.slice(2).map((a) => `${a.scheme} ${a.network}`);
    if (product.pricing?.formula?.includes("upto")) {
      assert.deepEqual(others, ["upto eip155:8453", "upto eip155:84532"], product.sku);
      assert.deepEqual(product.upto?.networks, ["eip155:8453", "eip155:84532"], product.sku);
    } else if (product.pricing?.dynamic) {
      assert.deepEqual(others, [], product.sku);
    } else {
      assert.deepEqual(
        others,
        ["batch-settlement eip155:8453", "batch-settlement eip155:84532"],
        product.sku,
      );
      assert.deepEqual(product["batch-settlement"]?.networks, ["eip155:8453", "eip155:84532"], product.sku);
    }
    for (const accept of accepts) {
      assert.ok(["exact", "upto", "batch-settlement"].includes(accept.scheme), product.sku);
      // A dynamic price is the example request's own price, never below the declared minimum.
      if (product.pricing?.dynamic) assert.ok(BigInt(accept.amount) >= BigInt(product.amount), product.sku);
      else assert.equal(accept.amount, product.amount);
      assert.match(accept.payTo, /^0x[0-9a-fA-F]{40}$/);
      assert.ok(accept.maxTimeoutSeconds > 0);
      assert.ok(accept.extra.name && accept.extra.version);
    }
    assert.equal(accepts[0]?.asset, "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    assert.equal(accepts[1]?.asset, "0x036CbD53842c5426634e7929541eC2318f3dCF7e");
    assert.equal((header.resource as any).url, `${service.config.publicUrl}${product.path}${search}`);
    const bazaar = (header.extensions as any)?.bazaar;
    assert.equal(bazaar.info.input.type, "http");
    assert.equal(bazaar.info.input.method, product.method);
    assert.equal(bazaar.info.output.type, "json", `${product.sku} declares its output`);
    // The header's answer schema is cut to fit a 4 KB response head (the chat's four accepts leave it its
    // type); the whole declaration is in the body.
    assert.equal(bazaar.schema.properties.output.properties.example.type, "object", product.sku);
    const body = (await response.json()) as any;
    assert.deepEqual(body.accepts, accepts);
    assert.equal(body.x402Version, 2);
    assert.ok(
      body.extensions.bazaar.schema.properties.output.properties.example.properties,
      `${product.sku} declares its output schema`,
    );
  }
});

test("catalog entries carry every documented field", async () => {
  const catalog = await get("/catalog.json");
  assert.match(catalog.version, /^[0-9a-f]{16}$/);
  for (const p of catalog.products) {
    for (const field of [
      "sku",
      "method",
      "path",
      "parameters",
      "priceUsd",
      "amount",
      "networks",
      "status",
      "mode",
      "description",
      "freeSampleUrl",
    ]) {
      assert.ok(field in p, `${p.sku} has ${field}`);
    }
    assert.ok(["live", "live-hold", "coming-soon", "verify-free", "inventory-ready"].includes(p.status));
  }
  const fx = catalog.products.find((p: any) => p.sku === "macro.ecb.fx");
  assert.equal(fx.priceUsd, "0.005");
  assert.equal(fx.amount, "5000");
  assert.deepEqual(fx.parameters.find((p: any) => p.name === "pair")?.required, true);
  assert.equal(fx.parameters.find((p: any) => p.name === "currency")?.aliasOf, "pair");
  assert.deepEqual(await get("/"), catalog);
});

test("the catalog version changes when a product changes", () => {
  const config = loadConfig({ DATA_DIR: service.dataDir });
  const products = buildFamilies(config).flatMap((f) => f.products);
  const before = catalogVersion(products.map((p) => describeProduct(config, p)));
  const changed = products.map((p, i) => (i === 0 ? { ...p, price: "0.006" } : p));
  assert.notEqual(catalogVersion(changed.map((p) => describeProduct(config, p))), before);
  assert.equal(catalogVersion(products.map((p) => describeProduct(config, p))), before);
});

test("/terms.json names sources, licences, disclaimers and contact", async () => {
  const terms = await get("/terms.json");
  assert.ok(terms.contact);
  assert.ok(terms.sources.some((s: any) => /ecb\.europa\.eu/.test(s.url) && s.licence?.name));
  assert.ok(terms.disclaimers.length > 0);
});

test("browsers get JSON too, never paywall HTML", async () => {
  const response = await fetch(`${service.url}/v1/macro/ecb/fx?pair=USD`, {
    headers: { accept: "text/html,application/xhtml+xml", "user-agent": "Mozilla/5.0 (X11; Linux x86_64)" },
  });
  assert.equal(response.status, 402);
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
});

test("browsers may send PAYMENT-SIGNATURE and read the x402 headers (CORS)", async () => {
  const preflight = await fetch(`${service.url}/v1/macro/ecb/fx?pair=USD`, {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "GET",
      "access-control-request-headers": "payment-signature",
    },
  });
  assert.ok(preflight.status === 204 || preflight.status === 200);
  assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /PAYMENT-SIGNATURE/i);
  // Browser MCP clients send these on POST /mcp.
  assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /Mcp-Protocol-Version/i);
  const challenge = await fetch(`${service.url}/v1/macro/ecb/fx?pair=USD`, {
    headers: { origin: "https://app.example" },
  });
  assert.equal(challenge.headers.get("access-control-allow-origin"), "*");
  assert.match(challenge.headers.get("access-control-expose-headers") ?? "", /PAYMENT-REQUIRED/i);
  assert.match(challenge.headers.get("access-control-expose-headers") ?? "", /PAYMENT-RESPONSE/i);
  assert.match(challenge.headers.get("access-control-expose-headers") ?? "", /X-Request-Id/i);
});
