// What the MCP endpoint offers, built once: the tools by name and the tools/list results as bytes, so a
// tools/list (a long document asked for by every agent session) is never serialized again.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpTool } from "./tools.ts";

export interface Offer {
  /** The catalog version as the server's: it changes whenever a tool's route, price or schemas change. */
  version: string;
  byName: Map<string, McpTool>;
  list: { tools: Tool[] };
  /** The tools/list result as JSON bytes: `legacy` for MCP revisions before 2026-07-28, `modern` with resultType. */
  listBytes: { legacy: Uint8Array; modern: Uint8Array };
}

export function buildOffer(version: string, tools: McpTool[]): Offer {
  const list = { tools: tools.map((t) => t.definition) };
  const encoder = new TextEncoder();
  return {
    version,
    byName: new Map(tools.map((t) => [t.name, t])),
    list,
    listBytes: {
      legacy: encoder.encode(JSON.stringify(list)),
      modern: encoder.encode(JSON.stringify({ resultType: "complete", ...list })),
    },
  };
}
