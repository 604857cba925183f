// A tool's arguments reach its product as the HTTP route's query would carry them: a value that needs escaping
// (space, '&', '=', '+', '%', non-ASCII) is refused or answered exactly as over HTTP.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestService, type TestService } from "./harness.ts";
import { postToolsCall } from "./mcp-harness.ts";

let service: TestService;

before(async () => {
  service = await startTestService();
});
after(() => service.stop());

async function toolText(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await postToolsCall(service.url, name, args);
  return result.content[0]?.text ?? "";
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
