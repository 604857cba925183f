import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startLoopbackUpstream } from "../../../test/family-harness.ts";
import type { PreflightCheck } from "../../catalog/product.ts";
import { loadConfig } from "../../config.ts";
import { openFdaPreflight } from "./preflight.ts";

const context = (env: Record<string, string>) => ({
  config: loadConfig({ LOG_LEVEL: "silent", ...env }),
  userAgent: "paycall-test",
  timeoutMs: 2000,
});
const probe = (checks: PreflightCheck[]) => checks.find((c) => c.upstream === "openfda");

describe("openFDA preflight", () => {
  it("warns without a key, and asks for one label anonymously", async () => {
    const upstream = await startLoopbackUpstream(() => ({ status: 200, body: '{"meta":{},"results":[]}' }));
    try {
      const env = { OPENFDA_BASE_URL: upstream.baseUrl };
      const checks = openFdaPreflight({ apiKey: undefined });
      assert.equal(
        (await checks.find((c) => c.upstream === "openfda (key)")?.run(context(env)))?.state,
        "warn",
      );
      assert.equal((await probe(checks)?.run(context(env)))?.state, "ok");
      assert.equal(upstream.requests[0]?.pathname, "/drug/label.json");
      assert.equal(upstream.requests[0]?.searchParams.get("limit"), "1");
      assert.equal(upstream.requests[0]?.searchParams.get("api_key"), null);
    } finally {
      await upstream.close();
    }
  });

  it("a key openFDA refuses is a blocker naming OPENFDA_API_KEY; the key is never printed", async () => {
    const key = "RefusedKey0123456789abcd";
    const upstream = await startLoopbackUpstream(() => ({
      status: 403,
      body: '{"error":{"code":"API_KEY_INVALID","message":"An invalid api_key was supplied."}}',
    }));
    try {
      const env = { OPENFDA_BASE_URL: upstream.baseUrl, OPENFDA_API_KEY: key };
      const verdict = await probe(openFdaPreflight({ apiKey: key }))?.run(context(env));
      assert.equal(verdict?.state, "blocker");
      assert.match(verdict?.fix ?? "", /OPENFDA_API_KEY/);
      assert.doesNotMatch(verdict?.detail ?? "", new RegExp(key));
      assert.equal(upstream.requests[0]?.searchParams.get("api_key"), key);
    } finally {
      await upstream.close();
    }
  });
});
