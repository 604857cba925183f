// A tool's arguments reach its product as the HTTP route's query would carry them: a value that needs escaping
// (space, '&', '=', '+', '%', non-ASCII) is refused or answered exactly as over HTTP.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestService, type TestService } from "./harness.ts";

let service: TestService;

before(async () => {
  service = await startTestService();
});
after(() => service.stop());

async function toolText(name: string, args: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${service.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const body = (await response.json()) as { result: { content: { text: string }[] } };
  return body.result.content[0]?.text ?? "";
}

test("an argument that needs escaping gets the HTTP route's answer", async () => {
  for (const pair of ["U S", "USD&pair=JPY", "US=D", "U+SD", "US%44", "ÜSD", "USD.x-y_z*"]) {
    const http = await fetch(`${service.url}/v1/macro/ecb/fx?${new URLSearchParams({ pair })}`);
    const httpText = await http.text();
    assert.equal(http.status, 400, pair);
    assert.match(httpText, /pair/, pair);
    assert.equal(await toolText("macro_ecb_fx", { pair }), httpText, pair);
  }
});
