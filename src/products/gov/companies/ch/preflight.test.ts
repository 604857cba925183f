import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startLoopbackUpstream } from "../../../../../test/family-harness.ts";
import { loadConfig } from "../../../../config.ts";
import { chPreflight } from "./preflight.ts";

const context = (env: Record<string, string>) => ({
  config: loadConfig({ LOG_LEVEL: "silent", ...env }),
  userAgent: "paycall-test",
  timeoutMs: 2000,
});

describe("Zefix preflight", () => {
  it("warns without the credentials; with them, probes by EHRA-ID and blocks on a refusal", async () => {
    const missing = await chPreflight(context({}).config).run(context({}));
    assert.equal(missing.state, "warn");
    assert.match(missing.fix ?? "", /zefix@bj\.admin\.ch/);
    const seen: string[] = [];
    const zefix = await startLoopbackUpstream((url) => {
      seen.push(url.pathname);
      return { status: 401, body: "" };
    });
    try {
      const env = { ZEFIX_USERNAME: "u", ZEFIX_PASSWORD: "p", GOV_CH_ZEFIX_BASE_URL: zefix.baseUrl };
      const verdict = await chPreflight(context(env).config).run(context(env));
      assert.equal(verdict.state, "blocker");
      assert.deepEqual(seen, ["/company/ehraid/119283"]);
    } finally {
      await zefix.close();
    }
  });
});
