import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startLoopbackUpstream } from "../../../test/family-harness.ts";
import { loadConfig } from "../../config.ts";
import { rdapPreflight } from "./preflight.ts";

const context = (env: Record<string, string>) => ({
  config: loadConfig({ LOG_LEVEL: "silent", ...env }),
  userAgent: "paycall-test",
  timeoutMs: 2000,
});

describe("RDAP preflight", () => {
  it("IANA's file is a blocker when missing; a supplement registry failing is only a warning", async () => {
    const upstream = await startLoopbackUpstream((url) =>
      url.pathname === "/denic/help"
        ? { status: 200, body: '{"rdapConformance":["rdap_level_0"]}' }
        : { status: 503, body: "down" },
    );
    try {
      const env = {
        IANA_RDAP_BASE_URL: upstream.baseUrl,
        RDAP_REGISTRY_RDAP_DENIC_DE_BASE_URL: `${upstream.baseUrl}/denic`,
        RDAP_REGISTRY_RDAP_NIC_CH_BASE_URL: `${upstream.baseUrl}/switch`,
      };
      const checks = rdapPreflight();
      const run = async (name: string) => checks.find((c) => c.upstream === name)?.run(context(env));
      assert.equal((await run("iana-rdap"))?.state, "blocker");
      assert.equal((await run("rdap-registry:rdap.denic.de"))?.state, "ok");
      const ch = await run("rdap-registry:rdap.nic.ch");
      assert.equal(ch?.state, "warn");
      assert.match(ch?.fix ?? "", /Only \.ch are affected/);
      assert.ok(checks.length >= 8, "one check per distinct supplement registry");
    } finally {
      await upstream.close();
    }
  });
});
