// Every way in to unpaid work is counted against the one per-client limit: MCP messages (each element of a
// JSON-RPC batch; batches capped), initialize and tools/list, free routes and refused payments, whatever
// PAYMENT-SIGNATURE they carry. A payment that verifies still goes through a client over its limit.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  newBuyer,
  signedPaymentHeader,
  startListeningService,
  type TestService,
} from "../../test/harness.ts";
import { testFamily } from "../../test/test-family.ts";
import { loadConfig } from "../config.ts";
import { MAX_BATCH } from "../mcp/unpaid-messages.ts";
import { llmFamily } from "../products/llm/index.ts";
import { creditWallet } from "../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../x402/shared/networks.ts";
import { WINDOW_MS } from "./rate-limiter.ts";

const LIMIT = 10;
let service: TestService;

// A listener: the limits count clients by their connection, and an MCP call's pass through the HTTP route is
// the point of one test.
before(async () => {
  service = await startListeningService({ RATE_LIMIT_PER_MIN: String(LIMIT), TRUST_PROXY: "true" }, [
    testFamily,
    llmFamily(loadConfig({ LOG_LEVEL: "silent", UPSTREAMS: "replay" })),
  ]);
});
after(() => service.stop());

async function clearOfWindowEnd(): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

function mcp(client: string, body: unknown): Promise<Response> {
  return fetch(`${service.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-forwarded-for": client,
    },
    body: JSON.stringify(body),
  });
}

const toolsList = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
const batch = (n: number) => Array.from({ length: n }, (_, i) => toolsList(i + 1));

test("MCP: every message of a batch counts, initialize and tools/list too; a batch over the cap is a JSON-RPC error", async () => {
  await clearOfWindowEnd();
  const client = "198.51.100.1";
  const tooMany = await mcp(client, batch(MAX_BATCH + 1));
  assert.equal(tooMany.status, 400);
  const error = (await tooMany.json()) as { jsonrpc: string; error: { code: number; message: string } };
  assert.equal(error.jsonrpc, "2.0");
  assert.equal(error.error.code, -32600);
  assert.match(error.error.message, new RegExp(`at most ${MAX_BATCH}`));

  const six = await mcp(client, batch(6));
  assert.equal(six.status, 200);
  assert.equal(((await six.json()) as unknown[]).length, 6);
  const init = await mcp(client, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  assert.equal(init.status, 200);
  await init.arrayBuffer();
  const three = await mcp(client, batch(3));
  assert.equal(three.status, 200, "6 + 1 + 3 = the limit of 10");
  await three.arrayBuffer();
  const refused = await mcp(client, toolsList(1));
  assert.equal(refused.status, 429);
  assert.equal(((await refused.json()) as { error: string }).error, "rate_limited");
  assert.ok(Number(refused.headers.get("retry-after")) >= 1);
  assert.equal((await mcp("198.51.100.2", toolsList(1))).status, 200, "another client is not affected");
});

test("any PAYMENT-SIGNATURE that is not a payment counts: free routes and refused payments alike", async () => {
  await clearOfWindowEnd();
  const free = (client: string) =>
    fetch(`${service.url}/v1/llm/models`, {
      headers: { "payment-signature": "x", "x-forwarded-for": client },
    });
  const statuses: number[] = [];
  for (let i = 0; i < LIMIT + 1; i++) {
    const response = await free("198.51.100.3");
    statuses.push(response.status);
    await response.arrayBuffer();
  }
  assert.deepEqual(statuses, [...Array(LIMIT).fill(200), 429], "a free route with a header is still unpaid");

  const client = "198.51.100.4";
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const header = await signedPaymentHeader(buyer, `${service.url}/v1/test/item?mode=ok`); // its 402: one
  const garbage = (value: string) =>
    fetch(`${service.url}/v1/test/item?mode=ok`, {
      headers: { "payment-signature": value, "x-forwarded-for": client },
    });
  const refusedPayments: number[] = [];
  for (let i = 0; i < LIMIT + 1; i++) {
    const response = await garbage(i % 2 ? "x" : Buffer.from('{"x402Version":2}').toString("base64"));
    refusedPayments.push(response.status);
    await response.arrayBuffer();
  }
  assert.equal(refusedPayments.filter((s) => s === 402).length, LIMIT);
  assert.equal(refusedPayments.at(-1), 429, "refused payments count against the unpaid limit");

  const paid = await fetch(`${service.url}/v1/test/item?mode=ok`, {
    headers: { "payment-signature": header, "x-forwarded-for": client },
  });
  assert.equal(paid.status, 200, "a payment that verifies is never limited");
  assert.ok(paid.headers.get("payment-response"));
});

test("MCP: a tool call is one unit, not counted again when it passes through the HTTP route", async () => {
  await clearOfWindowEnd();
  const client = "203.0.113.77";
  const call = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "test_item", arguments: { mode: "ok" } },
  });
  for (let i = 1; i <= LIMIT; i++) {
    const response = await mcp(client, call(i));
    const text = await response.text();
    assert.equal(response.status, 200, `call ${i} of ${LIMIT}: ${text.slice(0, 200)}`);
  }
  assert.equal((await mcp(client, call(LIMIT + 1))).status, 429);
});
