import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startLoopbackUpstream } from "../../../../test/family-harness.ts";
import { loadConfig } from "../../../config.ts";
import { companiesPreflight } from "./preflight.ts";

const context = (env: Record<string, string>) => ({
  config: loadConfig({ LOG_LEVEL: "silent", ...env }),
  userAgent: "paycall-test",
  timeoutMs: 2000,
});

describe("company registers preflight", () => {
  it("warns, without blocking, when the Companies House key is missing", async () => {
    const checks = companiesPreflight(context({}).config);
    const gb = checks.find((c) => c.upstream === "gov-gb-companies-house");
    const verdict = await gb?.run(context({}));
    assert.equal(verdict?.state, "warn");
    assert.match(verdict?.fix ?? "", /COMPANIES_HOUSE_API_KEY/);
  });

  it("probes Companies House with the key as the Basic user, and blocks on a refused key", async () => {
    const seen: Array<string | undefined> = [];
    const upstream = await startLoopbackUpstream((_url, request) => {
      seen.push(request.headers.authorization);
      return { status: 401, body: '{"error":"Invalid Authorization"}' };
    });
    try {
      const env = { COMPANIES_HOUSE_API_KEY: "k-1", GOV_GB_COMPANIES_HOUSE_BASE_URL: upstream.baseUrl };
      const gb = companiesPreflight(context(env).config).find((c) => c.upstream === "gov-gb-companies-house");
      const verdict = await gb?.run(context(env));
      assert.equal(verdict?.state, "blocker");
      assert.equal(seen[0], `Basic ${Buffer.from("k-1:").toString("base64")}`);
    } finally {
      await upstream.close();
    }
  });
});
