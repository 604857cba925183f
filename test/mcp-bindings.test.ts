// The x402 MCP transport's bindings end to end through the local facilitator: a client following the spec's
// extraction rule and one following the earlier x402 MCP client's both pay a tool; MCP 2026-07-28 requests get
// resultType and, when they advertise org.x402/payment, the extension binding; tools/list stays small and valid.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SUPPORTED_PROTOCOL_VERSIONS, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { isPaymentRequired } from "@x402/core/schemas";
import type { PaymentRequired } from "@x402/core/types";
import { LEGACY_PROTOCOLS } from "../src/mcp/direct.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { newBuyer, startTestService, type TestService } from "./harness.ts";
import { buyTool, earlierClientRule, specRule } from "./mcp-clients.ts";
import { connectMcp, firstText, signPayment } from "./mcp-harness.ts";

let service: TestService;
let client: Client;

before(async () => {
  service = await startTestService();
  await service.worker.runWarmer("ecb.fx");
  client = await connectMcp(service.url);
});
after(async () => {
  await client.close();
  await service.stop();
});

const balance = (address: string) => service.store.localUsdc.balance(NETWORKS.base.caip2, address);

async function fundedBuyer() {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  return buyer;
}

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${service.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const MODERN_META = (extensions: Record<string, object> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions },
  "io.modelcontextprotocol/clientInfo": { name: "modern-test", version: "1.0.0" },
});

async function rpc(method: string, params: Record<string, unknown>, id = 1) {
  const response = await post({ jsonrpc: "2.0", id, method, params });
  assert.equal(response.status, 200);
  const body = (await response.json()) as {
    id: number;
    result?: Record<string, any>;
    error?: { code: number };
  };
  assert.equal(body.id, id);
  return body;
}

test("the unpaid result carries the same PaymentRequired in structuredContent and content[0].text", async () => {
  const result = (await client.callTool({ name: "macro_ecb_fx", arguments: { pair: "USD" } })) as any;
  assert.equal(result.isError, true);
  assert.equal(firstText(result), JSON.stringify(result.structuredContent));
  assert.ok(isPaymentRequired(result.structuredContent), "a PaymentRequired by @x402/core's schema");
  assert.equal(result.structuredContent.x402Version, 2);
  assert.equal(result.structuredContent.error, "payment_required");
  assert.equal(result.structuredContent.accepts[0].amount, "5000");
  assert.equal(result.structuredContent.extensions.bazaar.info.input.toolName, "macro_ecb_fx");
  // Both rules find requirements that differ only by the Bazaar declaration, given once.
  const { extensions, ...spec } = specRule(result) as PaymentRequired & Record<string, unknown>;
  assert.ok(extensions);
  delete spec["x402/error"];
  assert.deepEqual(earlierClientRule(result), spec);
  assert.match(result.structuredContent["x402/error"].message, /0\.005 USD/);
});

for (const [label, rule] of [
  ["the spec's extraction rule", specRule],
  ["the earlier x402 MCP client's rule", earlierClientRule],
] as const) {
  test(`a client following ${label} pays a tool end to end`, async () => {
    const buyer = await fundedBuyer();
    const before = await balance(buyer.address);
    const { paid, settlement } = await buyTool(client, rule, buyer, "macro_ecb_fx", { pair: "USD" });
    assert.notEqual(paid.isError, true, firstText(paid));
    assert.equal((paid.structuredContent as Record<string, unknown>).pair, "EURUSD");
    assert.equal(settlement?.success, true);
    assert.equal(String(settlement?.payer).toLowerCase(), buyer.address.toLowerCase());
    assert.equal(before - (await balance(buyer.address)), 5000n);
    const row = (await service.store.ledger.list()).find((r) => r.transaction === settlement?.transaction);
    assert.equal(row?.state, "settled");
  });
}

test("a refused payment is the payment error again, readable by both rules", async () => {
  const buyer = await fundedBuyer();
  const call = (meta?: Record<string, unknown>) =>
    client.callTool({
      name: "macro_ecb_fx",
      arguments: { pair: "USD" },
      ...(meta ? { _meta: meta } : {}),
    }) as Promise<any>;
  const payment = await signPayment(buyer, specRule(await call()) as PaymentRequired);
  assert.notEqual((await call({ "x402/payment": payment })).isError, true);
  const replay = await call({ "x402/payment": payment });
  assert.equal(replay.isError, true);
  assert.equal(specRule(replay)?.error, "payment_already_used");
  assert.equal(earlierClientRule(replay)?.error, "payment_already_used");
});

test("MCP 2026-07-28: server/discover, and tools/list and tools/call with resultType complete", async () => {
  const discover = await rpc("server/discover", { _meta: MODERN_META() });
  assert.equal(discover.result?.resultType, "complete");
  assert.deepEqual(discover.result?.supportedVersions, ["2026-07-28"]);
  assert.ok(discover.result?.capabilities.tools);
  assert.deepEqual(discover.result?.capabilities.extensions, { "org.x402/payment": {} });
  assert.equal(discover.result?.serverInfo.name, "paycall");

  const list = await rpc("tools/list", { _meta: MODERN_META() });
  assert.equal(list.result?.resultType, "complete");
  assert.ok(list.result?.tools.some((t: { name: string }) => t.name === "macro_ecb_fx"));

  const unpaid = await rpc("tools/call", {
    name: "macro_ecb_fx",
    arguments: { pair: "USD" },
    _meta: MODERN_META(),
  });
  assert.equal(unpaid.result?.resultType, "complete");
  assert.equal(unpaid.result?.isError, true);
  assert.equal(specRule(unpaid.result as any)?.accepts[0]?.amount, "5000");

  const free = await rpc("tools/call", { name: "macro_ecb_status", arguments: {}, _meta: MODERN_META() });
  assert.equal(free.result?.resultType, "complete");
  assert.equal(free.result?.structuredContent.ok, true);

  const unknown = await rpc("tools/call", { name: "nope", arguments: {}, _meta: MODERN_META() });
  assert.equal(unknown.error?.code, -32602);
  const notification = await post({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { _meta: MODERN_META() },
  });
  assert.equal(notification.status, 202);
  const invalid = await post({
    jsonrpc: "1.0",
    id: 3,
    method: "tools/list",
    params: { _meta: MODERN_META() },
  });
  assert.equal(invalid.status, 400);
  assert.equal(((await invalid.json()) as { error: { code: number } }).error.code, -32600);
  const oddCapabilities = await rpc("tools/call", {
    name: "macro_ecb_fx",
    arguments: { pair: "USD" },
    _meta: {
      ...MODERN_META(),
      "io.modelcontextprotocol/clientCapabilities": { extensions: "org.x402/payment" },
    },
  });
  assert.equal(
    oddCapabilities.result?.resultType,
    "complete",
    "capabilities that are not a map advertise nothing",
  );
});

test("MCP 2026-07-28 with org.x402/payment advertised: payment_required, then paid with the settlement in _meta", async () => {
  const meta = MODERN_META({ "org.x402/payment": {} });
  const required = await rpc("tools/call", { name: "macro_ecb_fx", arguments: { pair: "USD" }, _meta: meta });
  assert.deepEqual(Object.keys(required.result ?? {}).sort(), ["paymentRequired", "resultType"]);
  assert.equal(required.result?.resultType, "payment_required");
  const paymentRequired = required.result?.paymentRequired as PaymentRequired;
  assert.ok(isPaymentRequired(paymentRequired));
  assert.equal(paymentRequired.resource.url, `${service.config.publicUrl}/mcp`);

  const buyer = await fundedBuyer();
  const payment = await signPayment(buyer, paymentRequired);
  const paid = await rpc("tools/call", {
    name: "macro_ecb_fx",
    arguments: { pair: "USD" },
    _meta: { ...meta, "x402/payment": payment },
  });
  assert.equal(paid.result?.resultType, "complete");
  assert.equal(paid.result?.structuredContent.pair, "EURUSD");
  assert.equal(paid.result?._meta["x402/payment-response"].success, true);

  const replay = await rpc("tools/call", {
    name: "macro_ecb_fx",
    arguments: { pair: "USD" },
    _meta: { ...meta, "x402/payment": payment },
  });
  assert.equal(replay.result?.resultType, "payment_required");
  assert.equal(replay.result?.paymentRequired.error, "payment_already_used");

  // An earlier revision's request never gets payment_required, even with the capability in _meta.
  const legacy = await rpc("tools/call", {
    name: "macro_ecb_fx",
    arguments: { pair: "USD" },
    _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { "org.x402/payment": {} } } },
  });
  assert.equal(legacy.result?.resultType, undefined);
  assert.equal(legacy.result?.isError, true);
});

test("tools/list: at most 150 KB for the whole catalog, each tool valid for the SDK and its inputSchema compiles", async () => {
  const response = await post({ jsonrpc: "2.0", id: 7, method: "tools/list" });
  const bytes = (await response.arrayBuffer()).byteLength;
  assert.ok(bytes <= 150 * 1024, `tools/list is ${bytes} bytes`);
  const catalog = (await (await fetch(`${service.url}/catalog.json`)).json()) as { products: unknown[] };
  const { tools } = await client.listTools();
  assert.equal(tools.length, catalog.products.length, "one page holds the whole catalog");
  const validator = new AjvJsonSchemaValidator();
  for (const tool of tools) {
    assert.ok(ToolSchema.safeParse(tool).success, tool.name);
    assert.doesNotThrow(() => validator.getValidator(tool.inputSchema), tool.name);
    assert.ok((tool.description ?? "").length <= 1000, `${tool.name}: a short description`);
  }
  // The prepared bytes are the SDK's own answer: a batch (answered by the SDK) lists the same tools.
  type ListAnswer = { result: { tools: unknown[] } };
  // The SDK answers a batch of one with the one response.
  const batch = (await (await post([{ jsonrpc: "2.0", id: 8, method: "tools/list" }])).json()) as
    | ListAnswer
    | ListAnswer[];
  assert.deepEqual((Array.isArray(batch) ? batch[0] : batch)?.result.tools, tools);
  assert.deepEqual(LEGACY_PROTOCOLS, SUPPORTED_PROTOCOL_VERSIONS);
  process.stdout.write(`# tools/list: ${bytes} bytes for ${tools.length} tools\n`);
});

test("tools/list answered from prepared bytes keeps the transport's checks", async () => {
  const wrongAccept = await post(
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
    { accept: "application/json" },
  );
  assert.equal(wrongAccept.status, 406);
  const badVersion = await post(
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
    { "mcp-protocol-version": "1999-01-01" },
  );
  assert.equal(badVersion.status, 400);
  const notJson = await fetch(`${service.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: "{",
  });
  assert.equal(notJson.status, 400);
  assert.equal(((await notJson.json()) as { error: { code: number } }).error.code, -32700);
  const string = await post({ jsonrpc: "2.0", id: "a", method: "tools/list" });
  assert.equal(((await string.json()) as { id: string }).id, "a");
});
