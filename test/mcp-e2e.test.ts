// Every product as a paid MCP tool, end to end: the SDK's MCP client, a real x402 buyer, the local facilitator.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpDiscoveryExtension } from "@x402/extensions/bazaar";
import { validateDiscoveryExtension } from "@x402/extensions/bazaar";
import { mcpClientConfig } from "../src/mcp/client-config.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { newBuyer, startTestService, type TestService } from "./harness.ts";
import { callTool, connectMcp, firstText, signPayment, x402Error } from "./mcp-harness.ts";

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
const ledgerRows = () => service.store.ledger.list();

async function fundedBuyer() {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  return buyer;
}

test("tools/list offers every product of the catalog, with schemas and the paid ones' price", async () => {
  const catalog = (await (await fetch(`${service.url}/catalog.json`)).json()) as {
    products: Array<{ sku: string; priceUsd: string; amount: string; mode: string }>;
  };
  const { tools } = await client.listTools();
  assert.equal(tools.length, catalog.products.length);
  const bySku = new Map(tools.map((t) => [t._meta?.["paycall/sku"], t]));
  for (const product of catalog.products) {
    const tool = bySku.get(product.sku);
    assert.ok(tool, `${product.sku} is a tool`);
    assert.match(tool.name, /^[A-Za-z0-9_-]{1,64}$/);
    assert.equal(tool.inputSchema.type, "object");
    // No outputSchema: an unpaid call's structuredContent is the PaymentRequired (see src/mcp/tools.ts).
    assert.equal(tool.outputSchema, undefined, product.sku);
    assert.equal(tool.annotations?.readOnlyHint, true);
    const price = tool._meta?.["x402/price"] as { priceUsd: string; amount: string } | undefined;
    if (product.mode === "paid") {
      assert.equal(price?.priceUsd, product.priceUsd, product.sku);
      assert.equal(price?.amount, product.amount, product.sku);
    } else assert.equal(price, undefined, `${product.sku} is free`);
  }
  const fx = tools.find((t) => t.name === "macro_ecb_fx");
  assert.deepEqual(fx?.inputSchema.required, ["pair"]);
  assert.ok(fx?.inputSchema.properties?.sample, "a paid tool with a free sample takes sample");
});

test("an unpaid call returns the x402 payment requirements as an error result; nothing is charged", async () => {
  const result = await callTool(client, "macro_ecb_fx", { pair: "USD" });
  assert.equal(result.isError, true);
  const error = x402Error(result);
  assert.equal(error.code, 402);
  assert.equal(error.data.x402Version, 2);
  assert.equal(error.data.error, "payment_required");
  assert.equal(error.data.resource?.url, `${service.config.publicUrl}/mcp`);
  const accept = error.data.accepts[0];
  assert.equal(accept?.amount, "5000");
  assert.equal(accept?.network, "eip155:8453");
  const bazaar = (result.structuredContent as { extensions: { bazaar: McpDiscoveryExtension } }).extensions
    .bazaar;
  assert.equal(bazaar.info.input.type, "mcp");
  assert.equal(bazaar.info.input.toolName, "macro_ecb_fx");
  assert.deepEqual(validateDiscoveryExtension(bazaar), { valid: true });
  // The signed offers travel in the HTTP 402's body, not its header: the MCP payment request has them too.
  const { extensions } = result.structuredContent as {
    extensions: Record<string, { info?: { offers?: unknown[] } }>;
  };
  const offers = extensions["offer-receipt"]?.info?.offers;
  assert.ok(offers && offers.length > 0, "signed offers in the MCP payment request");
  assert.deepEqual(JSON.parse(firstText(result)), result.structuredContent);
  assert.equal((await ledgerRows()).length, 0);
});

test("paying the call returns the answer and the settlement in _meta; the same payment again is refused", async () => {
  const buyer = await fundedBuyer();
  const before = await balance(buyer.address);
  const required = x402Error(await callTool(client, "macro_ecb_fx", { pair: "USD" })).data;
  const payment = await signPayment(buyer, required);

  const paid = await callTool(client, "macro_ecb_fx", { pair: "USD" }, payment);
  assert.notEqual(paid.isError, true);
  const answer = paid.structuredContent as Record<string, unknown>;
  assert.equal(answer.pair, "EURUSD");
  assert.ok(Array.isArray(answer.observations));
  assert.deepEqual(JSON.parse(firstText(paid)), answer);
  const receipt = paid._meta?.["x402/payment-response"] as Record<string, unknown>;
  assert.equal(receipt.success, true);
  assert.equal(receipt.network, "eip155:8453");
  assert.match(String(receipt.transaction), /^0x[0-9a-f]{64}$/);
  assert.equal(String(receipt.payer).toLowerCase(), buyer.address.toLowerCase());

  const rows = await ledgerRows();
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.sku, "macro.ecb.fx");
  assert.equal(rows[0]?.state, "settled");
  assert.equal(rows[0]?.transaction, receipt.transaction);
  assert.equal(before - (await balance(buyer.address)), 5000n);

  const replayed = await callTool(client, "macro_ecb_fx", { pair: "USD" }, payment);
  assert.equal(replayed.isError, true);
  assert.equal(x402Error(replayed).data.error, "payment_already_used");
  assert.equal((replayed.structuredContent as { error?: string }).error, "payment_already_used");
  assert.equal((await ledgerRows()).length, 1);
  assert.equal(before - (await balance(buyer.address)), 5000n);
});

test("bad arguments get an error naming the parameter, before payment and even with one attached", async () => {
  const buyer = await fundedBuyer();
  const required = x402Error(await callTool(client, "macro_ecb_fx", { pair: "USD" })).data;
  const payment = await signPayment(buyer, required);
  const before = await balance(buyer.address);
  const ledgerBefore = (await ledgerRows()).length;

  const cases: Array<[Record<string, unknown>, string]> = [
    [{ pair: "USD", colour: "red" }, "colour"],
    [{ pair: { code: "USD" } }, "pair"],
    [{}, "pair"],
    [{ pair: "GBP", sample: true }, "sample"],
    [{ pair: "USD", sample: "yes" }, "sample"],
  ];
  for (const [args, parameter] of cases) {
    for (const attached of [undefined, payment]) {
      const result = await callTool(client, "macro_ecb_fx", args, attached);
      assert.equal(result.isError, true, JSON.stringify(args));
      const body = JSON.parse(firstText(result)) as Record<string, unknown>;
      assert.equal(body.error, "invalid_parameter", JSON.stringify(args));
      assert.equal(body.parameter, parameter, JSON.stringify(args));
      assert.equal(body.charged, false);
    }
  }
  assert.equal(await balance(buyer.address), before);
  assert.equal((await ledgerRows()).length, ledgerBefore);
  // The payment was never claimed: it still buys the call.
  const paid = await callTool(client, "macro_ecb_fx", { pair: "USD" }, payment);
  assert.equal((paid._meta?.["x402/payment-response"] as { success?: boolean } | undefined)?.success, true);
});

test("the free sample and the free tools answer without payment", async () => {
  const ledgerBefore = (await ledgerRows()).length;
  for (const args of [{ pair: "USD", sample: true }, { sample: true }]) {
    const sample = await callTool(client, "macro_ecb_fx", args);
    assert.notEqual(sample.isError, true, firstText(sample));
    assert.equal((sample.structuredContent as Record<string, unknown>).pair, "EURUSD");
    assert.match(String((sample.structuredContent as Record<string, unknown>).notice), /UPSTREAMS=replay/);
    assert.equal(sample._meta?.["x402/payment-response"], undefined);
  }
  const status = await callTool(client, "macro_ecb_status", {});
  assert.notEqual(status.isError, true);
  assert.equal((status.structuredContent as Record<string, unknown>).ok, true);
  const withSample = await callTool(client, "macro_ecb_status", { sample: true });
  assert.equal(JSON.parse(firstText(withSample)).parameter, "sample");
  assert.equal((await ledgerRows()).length, ledgerBefore);
});

test("an unknown tool is a protocol error; GET and DELETE /mcp answer 405", async () => {
  await assert.rejects(callTool(client, "no_such_tool", {}), /Unknown tool no_such_tool/);
  for (const method of ["GET", "DELETE"]) {
    const response = await fetch(`${service.url}/mcp`, { method });
    assert.equal(response.status, 405);
    assert.equal(((await response.json()) as { jsonrpc: string }).jsonrpc, "2.0");
  }
});

test("/.well-known/x402 lists the paid tools with their Bazaar MCP declaration; the HTTP list is unchanged", async () => {
  const wellKnown = (await (await fetch(`${service.url}/.well-known/x402`)).json()) as {
    items: Array<{ sku: string }>;
    mcp: { endpoint: string; tools: Array<{ toolName: string; sku: string; input: { type: string } }> };
  };
  assert.equal(wellKnown.mcp.endpoint, `${service.config.publicUrl}/mcp`);
  assert.deepEqual(
    wellKnown.mcp.tools.map((t) => t.sku),
    wellKnown.items.map((i) => i.sku),
  );
  const fx = wellKnown.mcp.tools.find((t) => t.sku === "macro.ecb.fx");
  assert.equal(fx?.toolName, "macro_ecb_fx");
  assert.equal(fx?.input.type, "mcp");
});

test("every free tool and every free sample answers with its JSON in structuredContent", async () => {
  const { tools } = await client.listTools();
  const outcomes: Record<string, string[]> = { answered: [], refused: [] };
  for (const tool of tools) {
    const free = tool._meta?.["x402/price"] === undefined;
    if (!free && !tool.inputSchema.properties?.sample) continue;
    const result = await callTool(client, tool.name, free ? {} : { sample: true });
    if (!result.isError) assert.deepEqual(result.structuredContent, JSON.parse(firstText(result)), tool.name);
    outcomes[result.isError ? "refused" : "answered"]?.push(tool.name);
  }
  assert.ok(outcomes.answered?.includes("macro_ecb_fx"));
  assert.ok((outcomes.answered?.length ?? 0) > 40, JSON.stringify(outcomes));
});

test("a POST product's tool takes its JSON body as arguments", async () => {
  const refused = await callTool(client, "llm_chat", { messages: [] });
  assert.equal(JSON.parse(firstText(refused)).parameter, "messages");
  const required = x402Error(
    await callTool(client, "llm_chat", { messages: [{ role: "user", content: "Say hello." }] }),
  );
  assert.equal(required.code, 402);
  assert.ok(Number(required.data.accepts[0]?.amount) > 0);
});

test("npm run mcp-config names the endpoint an MCP client connects to, and the paying bridge", async () => {
  const text = mcpClientConfig(service.config, "/opt/node/bin/node");
  const snippets = (text.match(/^\{$[\s\S]*?^\}$/gm) ?? []).map(
    (block) => JSON.parse(block) as { mcpServers: { paycall: Record<string, any> } },
  );
  const [bridge, direct] = snippets.map((s) => s.mcpServers.paycall);
  assert.equal(bridge?.command, "/opt/node/bin/node");
  assert.match(bridge?.args[0], /src\/main\.ts$/);
  assert.deepEqual(bridge?.args.slice(1), ["mcp-buy", "--url", `${service.config.publicUrl}/mcp`]);
  assert.equal(bridge?.env.DATA_DIR, service.config.dataDir);
  const other = new Client({ name: "configured", version: "1.0.0" });
  await other.connect(new StreamableHTTPClientTransport(new URL(direct?.url)));
  assert.ok((await other.listTools()).tools.length > 0);
  await other.close();
});

test("a worker node (ROLE=worker) does not serve /mcp", async () => {
  const worker = await startTestService({ ROLE: "worker" });
  try {
    const response = await fetch(`${worker.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(response.status, 404);
  } finally {
    await worker.stop();
  }
});
