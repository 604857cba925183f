import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError } from "../../config.ts";
import { DEFAULT_FRED_SERIES, readFredSettings } from "./settings.ts";

describe("FRED settings", () => {
  it("defaults: no key, the default series, ten years of history, redistribution not permitted", () => {
    assert.deepEqual(readFredSettings({}), {
      apiKey: undefined,
      series: DEFAULT_FRED_SERIES,
      historyYears: 10,
      redistributionPermitted: false,
    });
    assert.equal(readFredSettings({ FRED_REDISTRIBUTION: "permitted" }).redistributionPermitted, true);
    assert.ok(DEFAULT_FRED_SERIES.includes("GDP") && DEFAULT_FRED_SERIES.includes("DGS10"));
  });

  it("reads a series list in any case, without duplicates, and a history of 0 (everything)", () => {
    const settings = readFredSettings({
      FRED_SERIES: " unrate, GDP ,unrate,,T10Y2Y",
      FRED_HISTORY_YEARS: "0",
    });
    assert.deepEqual(settings.series, ["UNRATE", "GDP", "T10Y2Y"]);
    assert.equal(settings.historyYears, 0);
  });

  it("names the variable when a value is wrong", () => {
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ FRED_API_KEY: "ABC" }, "FRED_API_KEY", /32 lower-case/],
      [{ FRED_API_KEY: "A".repeat(32) }, "FRED_API_KEY", /32 lower-case/],
      [{ FRED_SERIES: "GDP,UN-RATE" }, "FRED_SERIES", /"UN-RATE" is not a FRED series id/],
      [{ FRED_SERIES: " , " }, "FRED_SERIES", /at least one/],
      [{ FRED_HISTORY_YEARS: "ten" }, "FRED_HISTORY_YEARS", /integer/],
      [{ FRED_SERIES: `GDP,${"A".repeat(26)}` }, "FRED_SERIES", /at most 25/],
      [{ FRED_REDISTRIBUTION: "yes" }, "FRED_REDISTRIBUTION", /permitted, not-permitted/],
    ];
    for (const [env, variable, message] of cases) {
      assert.throws(
        () => readFredSettings(env),
        (error: unknown) =>
          error instanceof ConfigError && error.variable === variable && message.test(error.message),
        JSON.stringify(env),
      );
    }
  });
});
