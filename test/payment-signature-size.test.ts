// A paid retry's PAYMENT-SIGNATURE echoes the 402's offer, resource and extensions, and on Solana carries the whole
// transaction. Measured with the SDK's own clients (exact on Base, upto where a route sells by use, exact on Solana)
// on every paid route, answering the PAYMENT-REQUIRED header as @x402/fetch does, and answering the 402's JSON body
// as a client that reads the body would (the whole Bazaar declaration and every signed offer echoed). Offered on all
// four networks (the most signed offers), under a deployment-length PUBLIC_URL. Every signature stays within
// SIGNATURE_BUDGET, so a request carrying one fits paycall's 32 KB of request headers and the deploy configs'
// proxies (README, "Operating"); the largest are reported as diagnostics.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { generateKeyPairSigner } from "@solana/kit";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import {
  type CatalogProduct,
  newBuyer,
  paidProducts,
  startTestService,
  type TestService,
} from "./harness.ts";
import { SOLANA_RPC_PATH, solanaScheme } from "./solana-client.ts";

/**
 * paycall's request-header limit (32 KB, src/http/listen.ts) less 8 KB for the request's other headers: the
 * signature test/deploy/proxies.deploy-test.ts sends through every proxy config in deploy/.
 */
const SIGNATURE_BUDGET = 24 * 1024;

let service: TestService;
let paid: CatalogProduct[];
let clients: Record<"base exact" | "base upto" | "solana exact", x402Client>;

before(async () => {
  service = await startTestService({
    PUBLIC_URL: "https://data-api.paycall-example.org",
    NETWORKS: "base,base-sepolia,solana,solana-devnet",
  });
  await service.worker.runWarmer("ecb.fx");
  paid = await paidProducts(service.url);
  const evm = newBuyer();
  const solana = solanaScheme(await generateKeyPairSigner(), `${service.url}${SOLANA_RPC_PATH}`);
  clients = {
    "base exact": new x402Client().register("eip155:8453", new ExactEvmScheme(evm)),
    "base upto": new x402Client().register("eip155:8453", new UptoEvmScheme(evm)),
    "solana exact": new x402Client().register("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", solana),
  };
});
after(() => service.stop());

function request(product: CatalogProduct): RequestInit {
  return product.method === "POST"
    ? {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(product.exampleBody ?? {}),
      }
    : {};
}

/** The route's URL a buyer pays for: its example when that gets the 402 (an item not cached is a 404), else bare. */
async function payableUrl(product: CatalogProduct): Promise<string> {
  if (product.example) {
    const url = `${service.url}${product.path}?${new URLSearchParams(product.example)}`;
    if ((await fetch(url, request(product))).status === 402) return url;
  }
  return `${service.url}${product.path}`;
}

/** The signature @x402/fetch sends (it answers the header), captured instead of sent; undefined if it cannot pay. */
async function fromHeader(client: x402Client, url: string, init: RequestInit): Promise<string | undefined> {
  let header: string | undefined;
  const capture: typeof fetch = async (input, options) => {
    const captured = new Request(input, options);
    header = captured.headers.get("payment-signature") ?? undefined;
    return header ? new Response("{}", { status: 418 }) : fetch(captured);
  };
  await wrapFetchWithPayment(capture, client)(url, init).catch(() => undefined);
  return header;
}

/** The signature of a client answering the 402's JSON body; undefined if it cannot pay. */
async function fromBody(client: x402Client, url: string, init: RequestInit): Promise<string | undefined> {
  const required = (await (await fetch(url, init)).json()) as PaymentRequired;
  const payload = await client.createPaymentPayload(required).catch(() => undefined);
  return payload && encodePaymentSignatureHeader(payload);
}

test("every paid route's PAYMENT-SIGNATURE, Base and Solana, header and body answered, fits the budget", async (t) => {
  const largest = new Map<string, { bytes: number; sku: string }>();
  const unpaid = new Set(paid.map((p) => p.sku));
  for (const product of paid) {
    const url = await payableUrl(product);
    for (const [name, client] of Object.entries(clients)) {
      for (const [answering, sign] of [
        ["header", fromHeader],
        ["body", fromBody],
      ] as const) {
        const signature = await sign(client, url, request(product));
        if (signature === undefined) continue;
        unpaid.delete(product.sku);
        const key = `${name}, answering the ${answering}`;
        if (signature.length > (largest.get(key)?.bytes ?? 0))
          largest.set(key, { bytes: signature.length, sku: product.sku });
      }
    }
  }
  assert.deepEqual([...unpaid], [], "every paid route was paid by some client");
  assert.equal(largest.size, 6, [...largest.keys()].join("; "));
  for (const [key, { bytes, sku }] of largest) {
    t.diagnostic(`${key}: ${bytes} B (${sku})`);
    assert.ok(bytes <= SIGNATURE_BUDGET, `${key}: ${bytes} B on ${sku}`);
  }
});
