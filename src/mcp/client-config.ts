// `npm run mcp-config`: what an MCP client's configuration needs to reach this server's tools.
import type { Config } from "../config.ts";
import { MCP_PATH } from "./tools.ts";

export function mcpClientConfig(config: Config): string {
  const url = `${config.publicUrl}${MCP_PATH}`;
  const generic = { mcpServers: { paycall: { type: "http", url } } };
  // Claude Desktop's configuration file starts local commands only; the mcp-remote bridge relays to a URL.
  const desktop = { mcpServers: { paycall: { command: "npx", args: ["-y", "mcp-remote", url] } } };
  const lines = [
    `paycall MCP endpoint: ${url} (Streamable HTTP, stateless)`,
    "",
    "MCP clients that connect to a URL (Claude Code .mcp.json, Cursor, …):",
    JSON.stringify(generic, null, 2),
    "",
    "Claude Desktop (claude_desktop_config.json, through the mcp-remote bridge):",
    JSON.stringify(desktop, null, 2),
    "",
    "Free tools answer any MCP client. Paid tools answer an unpaid call with the x402 payment requirements",
    "(isError, x402 MCP transport); to buy, use an x402-paying MCP client that signs them and repeats the call",
    "with the payment in _meta[\"x402/payment\"] (for example @x402/mcp's client wrapped around the MCP SDK's).",
  ];
  if (!config.env.PUBLIC_URL) {
    lines.push(
      "",
      "PUBLIC_URL is not set: set it to the address clients reach this server at, then run this again.",
    );
  }
  return `${lines.join("\n")}\n`;
}
