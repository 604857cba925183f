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

  it("probes every company upstream: one row each, Brazil's share page and a HEAD of Canada's archive", async () => {
    const seen: Array<{ method?: string; path: string }> = [];
    const upstream = await startLoopbackUpstream((url, request) => {
      seen.push({ method: request.method, path: url.pathname });
      if (url.pathname.endsWith("OPEN_DATA_SPLIT.zip")) {
        return { status: 404, body: "" };
      }
      return { status: 200, headers: { "content-type": "text/html" }, body: "<html>share</html>" };
    });
    try {
      const env = {
        GOV_BR_RECEITA_CNPJ_BASE_URL: upstream.baseUrl,
        GOV_CA_CORPORATIONS_BASE_URL: upstream.baseUrl,
      };
      const checks = companiesPreflight(context(env).config);
      assert.deepEqual(checks.map((c) => c.upstream).sort(), [
        "gov-br-receita-cnpj",
        "gov-ca-corporations",
        "gov-ch-zefix",
        "gov-cz-ares",
        "gov-fr-recherche-entreprises",
        "gov-gb-companies-house",
        "gov-pl-krs",
        "gov-sk-rpo",
        "gov-sk-ruz",
      ]);
      const run = (name: string) => checks.find((c) => c.upstream === name)?.run(context(env));
      assert.equal((await run("gov-br-receita-cnpj"))?.state, "ok");
      const ca = await run("gov-ca-corporations");
      assert.equal(ca?.state, "blocker");
      assert.match(ca?.detail ?? "", /HTTP 404 from HEAD .*OPEN_DATA_SPLIT\.zip/);
      assert.match(ca?.fix ?? "", /GOV_CA_CORPORATIONS_BASE_URL/);
      assert.deepEqual(seen, [
        { method: "GET", path: "/index.php/s/YggdBLfdninEJX9" },
        { method: "HEAD", path: "/cc/lgcy/download/OPEN_DATA_SPLIT.zip" },
      ]);
    } finally {
      await upstream.close();
    }
  });
});
