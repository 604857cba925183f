// Every response head fits a default nginx: the status line and every header, PAYMENT-REQUIRED and
// PAYMENT-RESPONSE included, at most 4,096 bytes (proxy_buffer_size, one memory page; past it nginx answers
// 502 "upstream sent too big header"). Measured as the bytes on the wire, read raw from the socket, on every
// paid route of the catalog (bare URL and example URL), a long query, and paid answers (exact and upto).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import type { PrivateKeyAccount } from "viem/accounts";
import { readResponseHead } from "../src/preflight/response-head.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { RESPONSE_HEAD_LIMIT } from "../src/x402/seller/challenge.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import {
  type CatalogProduct,
  decodeBase64Json,
  newBuyer,
  paidProducts,
  startListeningService,
  type TestService,
} from "./harness.ts";

// A public URL as long as a real deployment's, both EVM networks and Solana with the local facilitator's blockhash
// hints: the chat then offers five accepts. (With solana-devnet too, six accepts, the chat's head passes 4 KB and
// the start-up warning names it.)
const PUBLIC_URL = "https://data-api.paycall-example.org";

let service: TestService;
let paid: CatalogProduct[];

before(async () => {
  // A listener: the head is measured as the socket carries it.
  service = await startListeningService({ PUBLIC_URL, NETWORKS: "base,base-sepolia,solana" });
  await service.worker.runWarmer("ecb.fx");
  paid = await paidProducts(service.url);
});
after(() => service.stop());

function jsonBody(product: CatalogProduct, body: unknown) {
  return product.method === "POST"
    ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) }
    : {};
}

test("every paid route's 402 head, bare and with its example, is at most 4,096 bytes on the wire", async () => {
  const over: string[] = [];
  const sizes: number[] = [];
  for (const product of paid) {
    const urls = [product.path];
    if (product.example) urls.push(`${product.path}?${new URLSearchParams(product.example)}`);
    for (const url of urls) {
      const head = await readResponseHead(`${service.url}${url}`, {
        method: product.method,
        ...jsonBody(product, url === product.path ? {} : product.exampleBody),
      });
      if (head.status !== 402) continue;
      assert.match(head.head, /\r\npayment-required: /i, url);
      sizes.push(head.bytes);
      if (head.bytes > RESPONSE_HEAD_LIMIT) over.push(`${product.method} ${url}: ${head.bytes} B`);
    }
    // The POST routes' example body, as a buyer sends it.
    if (product.method === "POST" && product.exampleBody !== undefined) {
      const head = await readResponseHead(`${service.url}${product.path}`, {
        method: "POST",
        ...jsonBody(product, product.exampleBody),
      });
      if (head.status === 402) sizes.push(head.bytes);
      if (head.status === 402 && head.bytes > RESPONSE_HEAD_LIMIT)
        over.push(`POST ${product.path} (example)`);
    }
  }
  assert.ok(sizes.length >= 2 * 30, `only ${sizes.length} 402s measured`);
  assert.deepEqual(over, []);
});

test("a 402 naming a long request URL (200 bytes of query) still fits", async () => {
  const query = encodeURIComponent("fourth amendment search and seizure ".repeat(5)).slice(0, 200);
  const head = await readResponseHead(`${service.url}/v1/courts/search?q=${query}`);
  assert.equal(head.status, 402);
  const header = /\r\npayment-required: ([^\r]+)/i.exec(head.head)?.[1] ?? null;
  const resource = decodeBase64Json(header).resource as { url: string };
  assert.ok(resource.url.endsWith(query), "the header names the request's own URL");
  assert.ok(head.bytes <= RESPONSE_HEAD_LIMIT, `${head.bytes} B`);
});

/** The PAYMENT-SIGNATURE a buyer's client signs for this request (captured from its retry, never sent). */
async function signedPayment(client: x402Client, url: string, init: RequestInit = {}): Promise<string> {
  let signature: string | undefined;
  const capture: typeof fetch = async (input, requestInit) => {
    const request = new Request(input, requestInit);
    signature = request.headers.get("payment-signature") ?? undefined;
    return signature ? new Response("{}", { status: 200 }) : fetch(request);
  };
  await wrapFetchWithPayment(capture, client)(url, init);
  if (!signature) throw new Error(`no payment was signed for ${url}`);
  return signature;
}

async function paidHead(buyer: PrivateKeyAccount, scheme: "exact" | "upto", path: string, body?: unknown) {
  const client = new x402Client().register(
    "eip155:*",
    scheme === "exact" ? new ExactEvmScheme(buyer) : new UptoEvmScheme(buyer),
  );
  const init =
    body === undefined
      ? {}
      : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const signature = await signedPayment(client, `${service.url}${path}`, init);
  return readResponseHead(`${service.url}${path}`, {
    ...init,
    headers: { ...(init.headers ?? {}), "payment-signature": signature },
  });
}

test("paid answers (PAYMENT-RESPONSE with its signed receipt), exact and the chat's upto, fit too", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "10");
  const chat = paid.find((p) => p.sku === "llm.chat");
  assert.ok(chat);
  const answers = [
    await paidHead(buyer, "exact", "/v1/macro/ecb/fx?pair=USD"),
    await paidHead(buyer, "exact", "/v1/courts/search?q=fourth+amendment"),
    await paidHead(buyer, "upto", chat.path, chat.exampleBody),
  ];
  for (const head of answers) {
    assert.equal(head.status, 200, head.head.split("\r\n")[0]);
    assert.match(head.head, /\r\npayment-response: /i);
    assert.ok(head.bytes <= RESPONSE_HEAD_LIMIT, `${head.bytes} B`);
  }
});
