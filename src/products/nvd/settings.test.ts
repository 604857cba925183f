import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../config.ts";
import { nvdFamily } from "./index.ts";
import { nvdSettings } from "./settings.ts";
import { nvdMinIntervalMs, nvdUpstream } from "./upstream.ts";

describe("NVD settings", () => {
  it("defaults to no key and a 120-day searchable window", () => {
    assert.deepEqual(nvdSettings({}), { apiKey: undefined, recentDays: 120 });
    assert.deepEqual(nvdSettings({ NVD_API_KEY: " ", NVD_RECENT_DAYS: "30" }), {
      apiKey: undefined,
      recentDays: 30,
    });
  });

  it("paces NVD requests by its published allowance: 5 per 30 s without a key, 50 with one", () => {
    const key = "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9";
    assert.equal(nvdSettings({ NVD_API_KEY: key }).apiKey, key);
    assert.equal(nvdMinIntervalMs({ apiKey: undefined }), 6500);
    assert.equal(nvdMinIntervalMs({ apiKey: key }), 650);
    for (const apiKey of [undefined, key]) {
      const spec = nvdUpstream({ apiKey });
      assert.equal(spec.maxConcurrent, 1);
      // Never more than the allowance in any 30 seconds.
      assert.ok(30_000 / (spec.minIntervalMs ?? 0) <= (apiKey ? 50 : 5));
    }
  });

  it("refuses a malformed key or window when the family is built, naming the variable", () => {
    for (const [variable, value] of [
      ["NVD_API_KEY", "not-a-key"],
      ["NVD_RECENT_DAYS", "0"],
      ["NVD_RECENT_DAYS", "ten"],
      ["NVD_RECENT_DAYS", "4000"],
    ] as const) {
      assert.throws(
        () => nvdFamily(loadConfig({ [variable]: value })),
        (error: unknown) => error instanceof ConfigError && error.variable === variable,
        `${variable}=${value}`,
      );
    }
  });

  it("declares its tables, warmers, jobs, background task and recordings", () => {
    const family = nvdFamily(loadConfig({}));
    assert.equal(family.name, "nvd");
    assert.deepEqual(
      family.products.map((p) => p.path),
      ["/v1/nvd/cve", "/v1/nvd/coverage", "/v1/nvd/status"],
    );
    assert.deepEqual(
      family.warmers?.map((w) => w.name),
      ["nvd.sync", "nvd.kev"],
    );
    assert.deepEqual(Object.keys(family.jobs ?? {}), ["nvd.cve", "nvd.sync"]);
    assert.deepEqual(
      family.background?.map((t) => t.name),
      ["nvd.search-index"],
    );
    assert.deepEqual(Object.keys(family.migrations ?? {}), ["0100_nvd_cves"]);
  });
});
