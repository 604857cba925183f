// `npm run mcp-config`: what an MCP client's configuration needs to use this server's tools. Clients that cannot
// pay (Claude Desktop, Cursor, …) start the paying bridge, `npm run mcp-buy`, as a local stdio server; clients
// that pay x402 themselves connect to the endpoint.
import path from "node:path";
import type { Config } from "../config.ts";
import { SETTINGS } from "../mcp-bridge/options.ts";
import { MCP_PATH } from "./tools.ts";

const MAIN = path.resolve(import.meta.dirname, "../main.ts");

export function mcpClientConfig(config: Config, nodePath: string = process.execPath): string {
  const url = `${config.publicUrl}${MCP_PATH}`;
  const bridge = {
    mcpServers: {
      paycall: {
        // Absolute paths: MCP clients start servers from their own working directory. This node is paycall's
        // own (Node 24 runs the .ts sources directly).
        command: nodePath,
        args: [MAIN, "mcp-buy", SETTINGS.url.flag, url],
        env: {
          DATA_DIR: config.dataDir,
          [SETTINGS.maxPerCall.env]: SETTINGS.maxPerCall.default,
          [SETTINGS.maxSession.env]: SETTINGS.maxSession.default,
          [SETTINGS.confirmAbove.env]: SETTINGS.confirmAbove.default,
        },
      },
    },
  };
  const direct = { mcpServers: { paycall: { type: "http", url } } };
  const lines = [
    `paycall MCP endpoint: ${url} (Streamable HTTP, stateless)`,
    "",
    "Claude Desktop (claude_desktop_config.json) or Cursor (.cursor/mcp.json): the paying bridge, which lists",
    "paycall's tools and pays for them with the buyer wallet (BUYER_PRIVATE_KEY, else DATA_DIR/dev-buyer.json),",
    `at most ${SETTINGS.maxPerCall.env} a call and ${SETTINGS.maxSession.env} a session, asking you above`,
    `${SETTINGS.confirmAbove.env}; receipts in DATA_DIR/mcp-buy-receipts.jsonl:`,
    JSON.stringify(bridge, null, 2),
    "",
    "MCP clients that pay x402 themselves (an x402 MCP client signs the PaymentRequired of an unpaid call and",
    'repeats it with the payment in _meta["x402/payment"]) connect to the endpoint:',
    JSON.stringify(direct, null, 2),
  ];
  if (!config.env.PUBLIC_URL) {
    lines.push(
      "",
      "PUBLIC_URL is not set: set it to the address clients reach this server at, then run this again.",
    );
  }
  if (config.env.DATABASE_URL) {
    lines.push("", "DATABASE_URL is set here: with the local facilitator, add it to the bridge's env too.");
  }
  if (config.buyerPrivateKey) {
    lines.push(
      "",
      "BUYER_PRIVATE_KEY is set here: add it to the bridge's env for it to pay from that wallet.",
    );
  }
  return `${lines.join("\n")}\n`;
}
