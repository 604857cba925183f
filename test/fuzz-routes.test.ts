// Every route of the catalog fuzzed, each parameter in turn given odd values (bad percent-escapes, control
// characters, line breaks, odd Unicode, huge and non-finite numbers) and each POST route odd bodies: never a
// 5xx, nothing charged, and what is plainly malformed is a 400 naming the parameter. The routes come from
// /catalog.json, so every family added later is fuzzed too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestService, type TestService } from "./harness.ts";

interface CatalogProduct {
  sku: string;
  method: string;
  path: string;
  parameters: Array<{ name: string; aliasOf?: string }>;
  example?: Record<string, string>;
  sample?: Record<string, string>;
}

let service: TestService;
let products: CatalogProduct[];

before(async () => {
  service = await startTestService({ SALE_DOMAIN: "paycall.example" });
  products = ((await (await fetch(`${service.url}/catalog.json`)).json()) as { products: CatalogProduct[] })
    .products;
});
after(() => service.stop());

/** Raw query values (already URL-encoded, or deliberately not). */
const MALFORMED_ESCAPES = ["%zz", "%", "ab%2", "%C3", "%ED%A0%80"];
const LINE_BREAKS = ["a%0Ab", "%0D%0Ax-injected:%201", "a%E2%80%A8b", "a%C2%85b"];
const ODD = [
  "%25zz",
  "%00",
  "%7F",
  "%E2%80%AE",
  "%E2%80%8B",
  "%F0%9F%92%A9",
  "e%CC%81%CC%81%CC%81",
  "%EF%BC%91%EF%BC%92",
  "1e309",
  "NaN",
  "Infinity",
  "-0",
  "9".repeat(400),
  "1_000",
];

async function send(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: the status is checked
  }
  return { status: response.status, body };
}

/** Runs `jobs` a few at a time (the sweep is thousands of requests). */
async function inBatches(jobs: Array<() => Promise<void>>, size = 16): Promise<void> {
  for (let i = 0; i < jobs.length; i += size) await Promise.all(jobs.slice(i, i + size).map((job) => job()));
}

function urlWith(product: CatalogProduct, name: string, rawValue: string): string {
  const params = new URLSearchParams(product.example ?? product.sample ?? {});
  params.delete(name);
  const aliasOf = product.parameters.find((p) => p.name === name)?.aliasOf;
  if (aliasOf) params.delete(aliasOf);
  const rest = params.toString();
  return `${service.url}${product.path}?${rest ? `${rest}&` : ""}${name}=${rawValue}`;
}

test("bad percent-escapes and line breaks in any parameter: 400 naming it, before payment", async () => {
  const jobs: Array<() => Promise<void>> = [];
  for (const product of products) {
    for (const { name, aliasOf } of product.parameters) {
      for (const value of [...MALFORMED_ESCAPES, ...LINE_BREAKS]) {
        jobs.push(async () => {
          const { status, body } = await send(urlWith(product, name, value), { method: product.method });
          const label = `${product.sku} ${name}=${value}`;
          assert.equal(status, 400, `${label}: ${status} ${JSON.stringify(body)}`);
          assert.ok([name, aliasOf].includes(body.parameter as string), `${label}: names ${body.parameter}`);
          assert.equal(body.charged, false, label);
        });
      }
    }
  }
  assert.ok(jobs.length > 500, `${jobs.length} cases`);
  await inBatches(jobs);
});

test("odd Unicode, control characters, huge and non-finite numbers in any parameter: never a 5xx", async () => {
  const jobs: Array<() => Promise<void>> = [];
  for (const product of products) {
    for (const { name } of product.parameters) {
      for (const value of ODD) {
        jobs.push(async () => {
          const { status, body } = await send(urlWith(product, name, value), { method: product.method });
          assert.ok(status < 500, `${product.sku} ${name}=${value}: ${status} ${JSON.stringify(body)}`);
          if (status !== 200 && status !== 402) assert.notEqual(body.charged, true);
        });
      }
    }
  }
  await inBatches(jobs);
});

test("a percent sign in an id that the product decodes again (EUR-Lex's CELEX from a URL): 400 naming it", async () => {
  for (const value of ["%25zz", "%25E0%25A4%25A", "CELEX%3A%25"]) {
    const { status, body } = await send(`${service.url}/v1/gov/eu/eurlex?id=${value}`);
    assert.equal(status, 400, `id=${value}: ${status} ${JSON.stringify(body)}`);
    assert.equal(body.parameter, "id");
  }
});

test("malformed escapes in a parameter's name, and in routes without parameters: 400, never a 5xx", async () => {
  for (const product of products) {
    const { status } = await send(`${service.url}${product.path}?%zz=1`, { method: product.method });
    assert.equal(status, 400, `${product.sku}: ${status}`);
  }
});

test("POST routes with odd bodies: never a 5xx", async () => {
  const bodies = [
    "",
    "null",
    "[]",
    "1e309",
    '"text"',
    "{",
    '{"__proto__":{"x":1}}',
    `${"[".repeat(5000)}${"]".repeat(5000)}`,
    JSON.stringify({ messages: [{ role: "user", content: "\u0000\u202e" }], max_tokens: 1e308 }),
    JSON.stringify({ text: "x".repeat(200_000) }),
  ];
  const jobs: Array<() => Promise<void>> = [];
  for (const product of products.filter((p) => p.method === "POST")) {
    for (const body of bodies) {
      jobs.push(async () => {
        const { status } = await send(`${service.url}${product.path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        assert.ok(status < 500, `${product.sku} body ${body.slice(0, 40)}: ${status}`);
      });
    }
  }
  await inBatches(jobs);
});
