import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError } from "../../config.ts";
import { DEFAULT_WARM_QUERIES, readOpenFdaSettings } from "./settings.ts";

describe("openFDA settings", () => {
  it("defaults: anonymous, 24 h cache, the popular names", () => {
    const settings = readOpenFdaSettings({});
    assert.equal(settings.apiKey, undefined);
    assert.equal(settings.cacheTtlMs, 24 * 3600_000);
    assert.deepEqual(settings.warmQueries, DEFAULT_WARM_QUERIES);
  });

  it("reads a key, a TTL and warm queries (normalised, deduplicated, or none)", () => {
    const settings = readOpenFdaSettings({
      OPENFDA_API_KEY: "abcdefghij0123456789XYZ",
      OPENFDA_CACHE_TTL_HOURS: "6",
      OPENFDA_WARM_QUERIES: "Advil, advil ,Tylenol PM",
    });
    assert.equal(settings.cacheTtlMs, 6 * 3600_000);
    assert.deepEqual(settings.warmQueries, ["advil", "tylenol pm"]);
    assert.deepEqual(readOpenFdaSettings({ OPENFDA_WARM_QUERIES: "none" }).warmQueries, []);
  });

  it("refuses a malformed key or a query that would be refused from a buyer", () => {
    assert.throws(() => readOpenFdaSettings({ OPENFDA_API_KEY: "key with spaces" }), ConfigError);
    assert.throws(() => readOpenFdaSettings({ OPENFDA_WARM_QUERIES: "advil*" }), /OPENFDA_WARM_QUERIES/);
    assert.throws(() => readOpenFdaSettings({ OPENFDA_CACHE_TTL_HOURS: "0" }), ConfigError);
  });
});
