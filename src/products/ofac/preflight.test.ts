import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startLoopbackUpstream } from "../../../test/family-harness.ts";
import { loadConfig } from "../../config.ts";
import { ofacPreflight } from "./preflight.ts";

const context = (env: Record<string, string>) => ({
  config: loadConfig({ LOG_LEVEL: "silent", ...env }),
  userAgent: "paycall-test",
  timeoutMs: 2000,
});

describe("OFAC preflight", () => {
  it("follows the export's redirect and is answered 304 to its If-Modified-Since: no download", async () => {
    const seen: Array<string | undefined> = [];
    const upstream = await startLoopbackUpstream((url, request) => {
      if (url.pathname === "/api/PublicationPreview/exports/CONSOLIDATED.XML")
        return { status: 302, headers: { location: "/signed/CONSOLIDATED.XML?X-Amz-Signature=x" }, body: "" };
      seen.push(request.headers["if-modified-since"]);
      return request.headers["if-modified-since"]
        ? { status: 304, body: "" }
        : { status: 200, body: "<sdnList/>".repeat(100_000) };
    });
    try {
      const verdict = await ofacPreflight()[0]?.run(context({ OFAC_BASE_URL: upstream.baseUrl }));
      assert.equal(verdict?.state, "ok", JSON.stringify(verdict));
      assert.equal(seen.length, 1);
      assert.ok(seen[0] && !Number.isNaN(Date.parse(seen[0])));
    } finally {
      await upstream.close();
    }
  });

  it("OFAC unreachable or refusing is a blocker", async () => {
    const upstream = await startLoopbackUpstream(() => ({ status: 403, body: "Forbidden" }));
    try {
      const verdict = await ofacPreflight()[0]?.run(context({ OFAC_BASE_URL: upstream.baseUrl }));
      assert.equal(verdict?.state, "blocker");
      assert.match(verdict?.fix ?? "", /OFAC_BASE_URL/);
    } finally {
      await upstream.close();
    }
  });
});
