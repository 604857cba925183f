import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError } from "../../config.ts";
import { authMode, DEFAULT_WARM_QUERIES, readCourtsSettings } from "./settings.ts";

function configError(env: Record<string, string>): ConfigError {
  try {
    readCourtsSettings(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

describe("courts settings", () => {
  it("defaults: anonymous, the popular queries, 24 h cache, 3 s between searches", () => {
    const settings = readCourtsSettings({});
    assert.equal(settings.token, undefined);
    assert.equal(authMode(settings), "anonymous");
    assert.deepEqual(settings.warmQueries, DEFAULT_WARM_QUERIES);
    assert.equal(settings.cacheTtlMs, 24 * 3600_000);
    assert.equal(settings.minIntervalMs, 3000);
  });

  it("a token switches the auth mode and shortens the gap between searches", () => {
    const settings = readCourtsSettings({ COURTLISTENER_TOKEN: "0123456789abcdef0123456789abcdef01234567" });
    assert.equal(authMode(settings), "token");
    assert.equal(settings.minIntervalMs, 1000);
  });

  it("CourtListener's 2026 free tier by default: 5 a minute, 50 an hour, 125 a day (anonymous 100)", () => {
    assert.deepEqual(readCourtsSettings({}).limits, { perMinute: 5, perHour: 50, perDay: 100 });
    const token = { COURTLISTENER_TOKEN: "0123456789abcdef0123456789abcdef01234567" };
    assert.deepEqual(readCourtsSettings(token).limits, { perMinute: 5, perHour: 50, perDay: 125 });
    assert.equal(readCourtsSettings({}).warmShare, 0.6);
    const paid = readCourtsSettings({
      ...token,
      COURTLISTENER_PER_MINUTE: "25",
      COURTLISTENER_PER_HOUR: "300",
      COURTLISTENER_PER_DAY: "1400",
      COURTS_WARM_SHARE_PERCENT: "40",
    });
    assert.deepEqual(paid.limits, { perMinute: 25, perHour: 300, perDay: 1400 });
    assert.equal(paid.warmShare, 0.4);
  });

  it("refuses warm queries that cannot fit in the warmer's share of a day", () => {
    const ten = Array.from({ length: 10 }, (_, i) => `query ${i}`).join(",");
    const error = configError({ COURTS_WARM_QUERIES: ten, COURTLISTENER_PER_DAY: "15" });
    assert.equal(error.variable, "COURTS_WARM_QUERIES");
    assert.match(error.message, /only 9 searches a day/);
    assert.equal(configError({ COURTLISTENER_PER_MINUTE: "0" }).variable, "COURTLISTENER_PER_MINUTE");
    assert.equal(configError({ COURTS_WARM_SHARE_PERCENT: "101" }).variable, "COURTS_WARM_SHARE_PERCENT");
  });

  it("reads warm queries comma-separated, normalised and deduplicated; none turns warming off", () => {
    const settings = readCourtsSettings({ COURTS_WARM_QUERIES: " Fair  Use, habeas corpus ,,fair use" });
    assert.deepEqual(settings.warmQueries, ["Fair Use", "habeas corpus"]);
    assert.deepEqual(readCourtsSettings({ COURTS_WARM_QUERIES: "none" }).warmQueries, []);
  });

  it("refuses bad values, naming the variable", () => {
    assert.equal(configError({ COURTLISTENER_TOKEN: "Token abc def" }).variable, "COURTLISTENER_TOKEN");
    assert.equal(configError({ COURTS_WARM_QUERIES: "fair use, &&" }).variable, "COURTS_WARM_QUERIES");
    assert.equal(configError({ COURTS_WARM_QUERIES: " , ," }).variable, "COURTS_WARM_QUERIES");
    const many = Array.from({ length: 51 }, (_, i) => `query ${i}`).join(",");
    assert.equal(configError({ COURTS_WARM_QUERIES: many }).variable, "COURTS_WARM_QUERIES");
    assert.equal(configError({ COURTS_CACHE_TTL_HOURS: "0" }).variable, "COURTS_CACHE_TTL_HOURS");
    assert.equal(configError({ COURTS_CACHE_TTL_HOURS: "1.5" }).variable, "COURTS_CACHE_TTL_HOURS");
    assert.equal(
      configError({ COURTLISTENER_MIN_INTERVAL_MS: "-1" }).variable,
      "COURTLISTENER_MIN_INTERVAL_MS",
    );
  });
});
