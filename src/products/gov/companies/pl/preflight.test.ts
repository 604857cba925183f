import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startLoopbackUpstream } from "../../../../../test/family-harness.ts";
import { loadConfig } from "../../../../config.ts";
import { plPreflight } from "./preflight.ts";

describe("KRS preflight", () => {
  it("a JSON extract is ok; the maintenance page served with HTTP 200 is a warning, not ok", async () => {
    let maintenance = false;
    const krs = await startLoopbackUpstream(() =>
      maintenance
        ? { status: 200, headers: { "content-type": "text/html" }, body: "<h1>Przerwa techniczna</h1>" }
        : { status: 200, headers: { "content-type": "application/json" }, body: '{"odpis":{}}' },
    );
    try {
      const context = {
        config: loadConfig({ LOG_LEVEL: "silent", GOV_PL_KRS_BASE_URL: krs.baseUrl }),
        userAgent: "paycall-test",
        timeoutMs: 2000,
      };
      assert.equal((await plPreflight().run(context)).state, "ok");
      maintenance = true;
      const verdict = await plPreflight().run(context);
      assert.deepEqual([verdict.state, /maintenance/.test(verdict.detail)], ["warn", true]);
    } finally {
      await krs.close();
    }
  });
});
