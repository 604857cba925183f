import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ECB_RECORDINGS_DIR } from "./index.ts";
import { normaliseExrCsv } from "./normalise.ts";

const recordedCsv = fs.readFileSync(path.join(ECB_RECORDINGS_DIR, "exr-daily.csv"), "utf8");
const FULL_HEADER = recordedCsv.slice(0, recordedCsv.indexOf("\n"));

/** One row in the full documented column set. */
function fullRow(o: {
  currency?: string;
  date: string;
  value: string;
  freq?: string;
  denom?: string;
  type?: string;
  name?: string;
}) {
  const c = o.currency ?? "USD";
  const name = o.name ?? "US dollar";
  return [
    `EXR.${o.freq ?? "D"}.${c}.${o.denom ?? "EUR"}.${o.type ?? "SP00"}.A`,
    o.freq ?? "D",
    c,
    o.denom ?? "EUR",
    o.type ?? "SP00",
    "A",
    o.date,
    o.value,
    "A,F,,,P1D,,A,,,,,,,99Q1=100,,,4,,4F0",
    "",
    `${name}/Euro ECB reference exchange rate`,
    `"ECB reference exchange rate, ${name}/Euro, 2.15 pm (C.E.T.)"`,
    c,
    "0",
  ].join(",");
}

describe("normaliseExrCsv on the recorded sample", () => {
  const series = normaliseExrCsv(recordedCsv);

  it("finds every currency, sorted by code, each with about three months of business days", () => {
    assert.equal(series.length, 23);
    const codes = series.map((s) => s.currency);
    assert.deepEqual(codes, [...codes].sort());
    for (const code of ["USD", "JPY", "GBP", "CHF", "CNY", "ZAR", "BRL"])
      assert.ok(codes.includes(code), code);
    for (const s of series) assert.equal(s.observations.length, 70, s.currency);
    assert.equal(
      series.reduce((n, s) => n + s.observations.length, 0),
      1610,
    );
  });

  it("keeps observations in strictly increasing date order, on weekdays only", () => {
    for (const s of series) {
      const dates = s.observations.map((o) => o.date);
      for (let i = 1; i < dates.length; i++)
        assert.ok(dates[i - 1]! < dates[i]!, `${s.currency} ${dates[i]}`);
      for (const date of dates) assert.ok(![0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay()), date);
      assert.equal(dates[0], "2026-08-17");
      assert.equal(dates.at(-1), "2026-11-20");
    }
  });

  it("reads rates as numbers and currency names from TITLE", () => {
    const usd = series.find((s) => s.currency === "USD")!;
    assert.equal(usd.title, "US dollar");
    assert.deepEqual(usd.observations.at(-1), { date: "2026-11-20", rate: 1.1615 });
    const jpy = series.find((s) => s.currency === "JPY")!;
    assert.deepEqual(jpy.observations.at(-1), { date: "2026-11-20", rate: 178.32 });
    assert.equal(series.find((s) => s.currency === "GBP")!.title, "UK pound sterling");
    assert.equal(series.find((s) => s.currency === "KRW")!.title, "Korean won (Republic)");
  });
});

describe("normaliseExrCsv row handling", () => {
  it("skips empty and NaN values and rows of other frequencies, denominations or rate types", () => {
    const csv = [
      FULL_HEADER,
      fullRow({ date: "2026-11-18", value: "" }),
      fullRow({ date: "2026-11-19", value: "NaN" }),
      fullRow({ date: "2026-11-20", value: "1.1615" }),
      fullRow({ date: "2026-11", value: "1.15", freq: "M" }),
      fullRow({ date: "2026-11-20", value: "0.9", denom: "USD" }),
      fullRow({ date: "2026-11-20", value: "1.2", type: "EN00" }),
    ].join("\n");
    assert.deepEqual(normaliseExrCsv(csv), [
      { currency: "USD", title: "US dollar", observations: [{ date: "2026-11-20", rate: 1.1615 }] },
    ]);
  });

  it("sorts rows that arrive out of order, keeps one rate per date, and accepts a BOM and CRLF", () => {
    const csv = `\uFEFF${[
      FULL_HEADER,
      fullRow({ currency: "USD", date: "2026-11-20", value: "1.1615" }),
      fullRow({ currency: "CHF", name: "Swiss franc", date: "2026-11-19", value: "0.9301" }),
      fullRow({ currency: "USD", date: "2026-11-18", value: "1.1590" }),
      fullRow({ currency: "USD", date: "2026-11-19", value: "1.1601" }),
      fullRow({ currency: "USD", date: "2026-11-19", value: "1.1602" }),
    ].join("\r\n")}\r\n`;
    const series = normaliseExrCsv(csv);
    assert.deepEqual(
      series.map((s) => s.currency),
      ["CHF", "USD"],
    );
    assert.deepEqual(series[1]!.observations, [
      { date: "2026-11-18", rate: 1.159 },
      { date: "2026-11-19", rate: 1.1602 },
      { date: "2026-11-20", rate: 1.1615 },
    ]);
    assert.equal(series[0]!.title, "Swiss franc");
  });

  it("works with detail=dataonly's short column set, naming the currency without TITLE", () => {
    const csv = [
      "KEY,FREQ,CURRENCY,CURRENCY_DENOM,EXR_TYPE,EXR_SUFFIX,TIME_PERIOD,OBS_VALUE",
      "EXR.D.USD.EUR.SP00.A,D,USD,EUR,SP00,A,2026-11-19,1.1601",
      "EXR.D.USD.EUR.SP00.A,D,USD,EUR,SP00,A,2026-11-20,1.1615",
      "EXR.D.JPY.EUR.SP00.A,D,JPY,EUR,SP00,A,2026-11-20,178.32",
    ].join("\n");
    const series = normaliseExrCsv(csv);
    assert.deepEqual(
      series.map((s) => [s.currency, s.observations.length]),
      [
        ["JPY", 1],
        ["USD", 2],
      ],
    );
    assert.match(series[1]!.title, /US dollar/i);
  });

  it("returns no series for a header with no rows", () => {
    assert.deepEqual(normaliseExrCsv(`${FULL_HEADER}\n`), []);
  });
});

describe("normaliseExrCsv rejects what is not the expected CSV", () => {
  it("an HTML error page", () => {
    assert.throws(
      () => normaliseExrCsv("<!DOCTYPE html><html><body><h1>Service unavailable</h1></body></html>"),
      /HTML or XML, not CSV/,
    );
  });

  it("a JSON body", () => {
    assert.throws(() => normaliseExrCsv('{"error":"No results found"}'), /JSON, not CSV/);
  });

  it("an empty body", () => {
    assert.throws(() => normaliseExrCsv("  \n"), /empty/);
  });

  it("CSV without the expected columns, naming them", () => {
    assert.throws(
      () => normaliseExrCsv("a,b\n1,2\n"),
      /lacks the columns FREQ, CURRENCY, CURRENCY_DENOM, EXR_TYPE, TIME_PERIOD, OBS_VALUE/,
    );
    assert.throws(
      () =>
        normaliseExrCsv(
          "KEY,FREQ,CURRENCY,CURRENCY_DENOM,EXR_TYPE,EXR_SUFFIX,TIME_PERIOD\nx,D,USD,EUR,SP00,A,2026-11-20\n",
        ),
      /lacks the column OBS_VALUE/,
    );
  });

  it("text that is not CSV at all", () => {
    assert.throws(() => normaliseExrCsv('Service "temporarily" unavailable\nplease retry'), /ECB EXR/);
  });
});
