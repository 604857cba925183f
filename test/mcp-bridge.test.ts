// `npm run mcp-buy` over stdio, as Claude Desktop or Cursor start it: the bridge process is spawned and spoken
// to in JSON-RPC on its stdin/stdout (the SDK's stdio client), against a test paycall with the local facilitator.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { parseBridgeOptions, RECEIPTS_FILE } from "../src/mcp-bridge/options.ts";
import { devBuyerWallet } from "../src/x402/facilitator/dev-wallets.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { startListeningService, type TestService } from "./harness.ts";

const MAIN = path.resolve(import.meta.dirname, "../src/main.ts");
let service: TestService;
const bridges: Client[] = [];

before(async () => {
  service = await startListeningService();
  await service.worker.runWarmer("ecb.fx");
  // Funded up front: a bridge then never credits the development buyer while a test reads its balance.
  await creditWallet(service.store, NETWORKS.base, devBuyerWallet(service.dataDir).address, "10");
});
after(async () => {
  for (const bridge of bridges) await bridge.close();
  await service.stop();
});

async function startBridge(
  options: { args?: string[]; env?: Record<string, string>; elicit?: (message: string) => boolean } = {},
): Promise<Client> {
  const client = new Client(
    { name: "bridge-test", version: "1.0.0" },
    options.elicit ? { capabilities: { elicitation: {} } } : {},
  );
  if (options.elicit) {
    const elicit = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) =>
      elicit(String(request.params.message))
        ? { action: "accept", content: { pay: true } }
        : { action: "decline" },
    );
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "mcp-buy", "--url", `${service.url}/mcp`, ...(options.args ?? [])],
    env: {
      PATH: process.env.PATH ?? "",
      DATA_DIR: service.dataDir,
      LOG_LEVEL: "silent",
      ...service.databaseEnv,
      ...options.env,
    },
    stderr: "ignore",
  });
  await client.connect(transport);
  bridges.push(client);
  return client;
}

const buyer = () => devBuyerWallet(service.dataDir).address;
const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer());
/** What the seller's ledger says the buyer was charged, in all (a voucher moves no USDC when it is paid). */
const charged = async () =>
  (await service.store.ledger.list({ state: "settled", limit: 1000 }))
    .filter((r) => r.payer?.toLowerCase() === buyer().toLowerCase())
    .reduce((sum, r) => sum + BigInt(r.amount), 0n);
const receipts = () => {
  const file = path.join(service.dataDir, RECEIPTS_FILE);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, string>);
};
const text = (result: CallToolResult) =>
  result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
const fx = (bridge: Client) =>
  bridge.callTool({ name: "macro_ecb_fx", arguments: { pair: "USD" } }) as Promise<CallToolResult>;

test("the bridge lists paycall's tools and buys one with the buyer wallet, keeping the receipt", async () => {
  const bridge = await startBridge();
  const { tools } = await bridge.listTools();
  assert.ok(tools.length > 100);
  assert.ok(tools.some((t) => t.name === "macro_ecb_fx"));

  const free = (await bridge.callTool({ name: "macro_ecb_status", arguments: {} })) as CallToolResult;
  assert.equal((free.structuredContent as { ok: boolean }).ok, true);

  const before = await balance();
  const chargedBefore = await charged();
  const receiptsBefore = receipts().length;
  // The first call opens a batch-settlement channel: the deposit (ten calls' worth, as the seller suggests)
  // is the one transaction; the second call is a voucher and moves nothing on chain.
  const paid = await fx(bridge);
  assert.notEqual(paid.isError, true, text(paid));
  assert.equal((paid.structuredContent as { pair: string }).pair, "EURUSD");
  assert.match(
    text(paid),
    /Paid 0\.005 USD in USDC on eip155:8453 \(a batch-settlement voucher, with a deposit of 0\.05 USD into the channel \(transaction 0x[0-9a-f]{64}\)\)/,
  );
  assert.equal(before - (await balance()), 50_000n);
  const again = await fx(bridge);
  assert.match(
    text(again),
    /Paid 0\.005 USD in USDC on eip155:8453 \(a batch-settlement voucher: no transaction/,
  );
  assert.equal(before - (await balance()), 50_000n);
  assert.equal((await charged()) - chargedBefore, 10_000n);

  const kept = receipts().slice(receiptsBefore);
  assert.deepEqual(
    kept.map((r) => [r.tool, r.amount, r.scheme]),
    [
      ["macro_ecb_fx", "5000", "batch-settlement"],
      ["macro_ecb_fx", "5000", "batch-settlement"],
    ],
  );
  assert.equal(kept[0]?.payer?.toLowerCase(), buyer().toLowerCase());
  assert.match(kept[0]?.transaction ?? "", /^0x[0-9a-f]{64}$/);
  assert.equal(kept[1]?.transaction, "");
});

test("a call above the per-call cap is refused before paying, naming the setting to raise", async () => {
  const bridge = await startBridge({ env: { MCP_BUY_MAX_PER_CALL_USD: "0.001" } });
  const before = await balance();
  const result = await fx(bridge);
  assert.equal(result.isError, true);
  assert.match(text(result), /costs 0\.005 USD, above the per-call cap of 0\.001 USD/);
  assert.match(text(result), /--max-per-call or MCP_BUY_MAX_PER_CALL_USD/);
  assert.equal(await balance(), before);
});

test("above the threshold the user confirms (elicitation); the session cap stops the next call", async () => {
  const asked: string[] = [];
  let accept = false;
  const bridge = await startBridge({
    args: ["--confirm-above", "0.001", "--max-session", "0.008"],
    elicit: (message) => {
      asked.push(message);
      return accept;
    },
  });
  const before = await charged();
  const declined = await fx(bridge);
  assert.equal(declined.isError, true);
  assert.match(text(declined), /you declined the 0\.005 USD payment/);
  assert.equal(await charged(), before);

  accept = true;
  const paid = await fx(bridge);
  assert.notEqual(paid.isError, true, text(paid));
  assert.equal((await charged()) - before, 5000n);
  assert.equal(asked.length, 2);
  assert.match(asked[0] ?? "", /costs 0\.005 USD/);

  const capped = await fx(bridge);
  assert.equal(capped.isError, true);
  assert.match(text(capped), /session cap is 0\.008 USD \(raise --max-session or MCP_BUY_MAX_SESSION_USD/);
  assert.equal((await charged()) - before, 5000n);
  assert.equal(asked.length, 2, "a capped call asks nothing");
});

test("a client that cannot confirm is told which setting lets the bridge pay without asking", async () => {
  const bridge = await startBridge({ args: ["--confirm-above", "0.001"] });
  const before = await balance();
  const result = await fx(bridge);
  assert.equal(result.isError, true);
  assert.match(text(result), /cannot ask you to confirm/);
  assert.match(text(result), /--confirm-above or MCP_BUY_CONFIRM_ABOVE_USD/);
  assert.equal(await balance(), before);
});

test("the bridge's settings: flags over environment over defaults; a bad value names its flag and variable", () => {
  const config = service.config;
  const defaults = parseBridgeOptions(config, [], {});
  assert.equal(defaults.url, `${config.publicUrl}/mcp`);
  assert.deepEqual(
    [defaults.maxPerCall, defaults.maxSession, defaults.confirmAbove],
    [100000n, 1000000n, 50000n],
  );
  assert.equal(defaults.receiptsFile, path.join(config.dataDir, RECEIPTS_FILE));
  const set = parseBridgeOptions(config, ["--max-session", "2"], {
    MCP_BUY_MAX_SESSION_USD: "5",
    MCP_BUY_CONFIRM_ABOVE_USD: "0.2",
  });
  assert.deepEqual([set.maxSession, set.confirmAbove], [2000000n, 200000n]);
  assert.throws(
    () => parseBridgeOptions(config, ["--max-per-call", "ten"], {}),
    /--max-per-call \(MCP_BUY_MAX_PER_CALL_USD\)/,
  );
  assert.throws(() => parseBridgeOptions(config, ["--spend", "1"], {}), /unknown argument --spend/);
  assert.throws(() => parseBridgeOptions(config, ["--url", "ftp://x"], {}), /--url \(PAYCALL_MCP_URL\)/);
});
