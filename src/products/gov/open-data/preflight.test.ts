// `npm run preflight` for the open-data portals against a loopback stand-in: one cheap request per portal,
// a maintenance page served with 200 reported as such, and catalog.data.gov's door (keyed or keyless).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type LoopbackUpstream, startLoopbackUpstream } from "../../../../test/family-harness.ts";
import { loadConfig } from "../../../config.ts";
import { OPEN_DATA_PORTALS } from "./portals.ts";
import { openDataPreflight } from "./preflight.ts";

const context = (env: Record<string, string>) => ({
  config: loadConfig({ LOG_LEVEL: "silent", ...env }),
  userAgent: "paycall-test",
  timeoutMs: 2000,
});

describe("open-data preflight", () => {
  let upstream: LoopbackUpstream;
  const seen: Array<{ path: string; query: string; key: string | undefined }> = [];
  before(async () => {
    upstream = await startLoopbackUpstream((url, request) => {
      seen.push({
        path: url.pathname,
        query: url.search,
        key: request.headers["x-api-key"] as string | undefined,
      });
      if (url.pathname.startsWith("/de/")) {
        return {
          status: 200,
          headers: { "content-type": "text/html" },
          body: "<html>Wartungsarbeiten</html>",
        };
      }
      if (request.headers["x-api-key"] === "bad-key") {
        return {
          status: 403,
          headers: { "content-type": "application/json" },
          body: '{"error":{"code":"API_KEY_INVALID","message":"An invalid api_key was supplied."}}',
        };
      }
      return { status: 200, headers: { "content-type": "application/json" }, body: "{}" };
    });
  });
  after(() => upstream.close());

  /** Every portal moved to the stand-in under /<cc>. */
  const envAll = (extra: Record<string, string> = {}) => ({
    ...Object.fromEntries(
      OPEN_DATA_PORTALS.map(({ portal }) => [
        `GOV_${portal.cc.toUpperCase()}_OPEN_DATA_BASE_URL`,
        `${upstream.baseUrl}/${portal.cc}`,
      ]),
    ),
    GOV_US_OPEN_DATA_API_BASE_URL: `${upstream.baseUrl}/v4`,
    ...extra,
  });

  it("one probe per portal, each the API's cheapest request; a 200 HTML page is a warning", async () => {
    seen.length = 0;
    const checks = openDataPreflight(context(envAll()).config);
    const verdicts = new Map<string, string>();
    for (const check of checks) verdicts.set(check.upstream, (await check.run(context(envAll()))).state);
    for (const { portal } of OPEN_DATA_PORTALS) {
      assert.ok(verdicts.has(portal.upstream.name), `a probe for ${portal.cc}`);
    }
    assert.equal(verdicts.get("gov-de-open-data"), "warn", "GovData's maintenance page");
    assert.equal(verdicts.get("gov-gb-open-data"), "ok");
    const asked = new Map(seen.map((s) => [s.path.split("/")[1], `${s.path}${s.query}`]));
    assert.equal(asked.get("gb"), "/gb/package_search?rows=0");
    assert.equal(asked.get("eu"), "/eu/search?filter=dataset&limit=1&page=0");
    assert.equal(asked.get("fr"), "/fr/datasets/?page=1&page_size=1");
    assert.equal(asked.get("pl"), "/pl/datasets?page=1&per_page=1");
    assert.equal(asked.get("cz"), "/cz/sparql?query=ASK+%7B%7D");
    assert.equal(asked.get("us"), "/us/search?per_page=1", "no key: the keyless backend");
  });

  it("without a data.gov key: a warning naming the setting; with a refused key: a blocker, key not shown", async () => {
    const keyless = openDataPreflight(context(envAll()).config).find(
      (c) => c.upstream === "gov-us-open-data (API)",
    );
    const warn = await keyless?.run(context(envAll()));
    assert.equal(warn?.state, "warn");
    assert.match(warn?.detail ?? "", /keyless site backend/);
    assert.match(warn?.fix ?? "", /GOV_US_OPEN_DATA_API_KEY/);

    seen.length = 0;
    const env = envAll({ GOV_US_OPEN_DATA_API_KEY: "bad-key" });
    const keyed = openDataPreflight(context(env).config).filter((c) => c.upstream.startsWith("gov-us"));
    assert.deepEqual(
      keyed.map((c) => c.upstream),
      ["gov-us-open-data-api"],
      "with a key only the documented API is probed",
    );
    const verdict = await keyed[0]?.run(context(env));
    assert.equal(verdict?.state, "blocker");
    assert.match(verdict?.detail ?? "", /HTTP 403 .*refused/);
    assert.match(verdict?.fix ?? "", /GOV_US_OPEN_DATA_API_KEY/);
    assert.doesNotMatch(JSON.stringify(verdict), /bad-key/);
    assert.deepEqual(seen, [{ path: "/v4/search", query: "?per_page=1", key: "bad-key" }]);
  });
});
