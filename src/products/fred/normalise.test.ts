import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadRecordings } from "../../upstream/recordings.ts";
import { FRED_RECORDINGS_DIR } from "./index.ts";
import { copyrightTag, licenceVerdict, PRE_APPROVAL_TAG } from "./licence.ts";
import {
  latestObservation,
  normaliseObservations,
  normaliseSeriesMeta,
  normaliseTagNames,
  parseFredTimestamp,
} from "./normalise.ts";
import { withoutApiKey } from "./upstream.ts";

const recordings = loadRecordings(FRED_RECORDINGS_DIR);
function recorded(path: string, seriesId: string): unknown {
  const r = recordings.find((x) => x.request.path === path && x.request.query?.series_id === seriesId);
  assert.ok(r, `recording ${path} ${seriesId}`);
  return JSON.parse(r.body);
}

describe("FRED normalisers over the recordings", () => {
  it("every recording says it is a sample", () => {
    assert.ok(recordings.length >= 15);
    for (const r of recordings) {
      assert.equal(r.sample, true);
      assert.match(r.description, /^SAMPLE, not live data/);
    }
  });

  it("reads series metadata from the `seriess` array, last_updated converted to UTC", () => {
    const meta = normaliseSeriesMeta(recorded("/fred/series", "UNRATE"));
    assert.deepEqual(
      { ...meta, notes: meta.notes.slice(0, 20) },
      {
        seriesId: "UNRATE",
        title: "Unemployment Rate",
        units: "Percent",
        frequency: "Monthly",
        seasonalAdjustment: "Seasonally Adjusted",
        lastUpdated: "2026-11-07T13:48:02.000Z",
        observationStart: "1948-01-01",
        observationEnd: "2026-10-01",
        notes: "The unemployment rat",
      },
    );
  });

  it("keeps values as FRED's strings, '.' for a missing value, in date order", () => {
    const observations = normaliseObservations(recorded("/fred/series/observations", "UNRATE"));
    assert.equal(observations.length, 130);
    assert.deepEqual(observations[0], { date: "2016-01-01", value: "4.9" });
    assert.ok(observations.every((o) => typeof o.value === "string" && Object.keys(o).length === 2));
    assert.deepEqual(
      observations.find((o) => o.date === "2025-10-01"),
      { date: "2025-10-01", value: "." },
    );
    const dates = observations.map((o) => o.date);
    assert.deepEqual(dates, [...dates].sort());
  });

  it("the latest observation skips trailing missing values", () => {
    const daily = normaliseObservations(recorded("/fred/series/observations", "DGS10"));
    assert.ok(daily.some((o) => o.value === "."));
    assert.equal(latestObservation(daily)?.date, "2026-11-19");
    const withGap = [
      { date: "2026-11-10", value: "4.01" },
      { date: "2026-11-11", value: "." },
    ];
    assert.deepEqual(latestObservation(withGap), { date: "2026-11-10", value: "4.01" });
    assert.equal(latestObservation([{ date: "2026-11-11", value: "." }]), null);
  });

  it("sorts observations FRED sent out of order and stringifies a numeric value", () => {
    const observations = normaliseObservations({
      observations: [
        { date: "2020-04-01", value: 2.5 },
        { date: "2020-01-01", value: "1.0" },
      ],
    });
    assert.deepEqual(observations, [
      { date: "2020-01-01", value: "1.0" },
      { date: "2020-04-01", value: "2.5" },
    ]);
  });

  it("names the field when FRED's answer has an unexpected shape", () => {
    assert.throws(() => normaliseSeriesMeta({ series: [] }), /series metadata .* at seriess/);
    assert.throws(() => normaliseSeriesMeta({ seriess: [] }), /seriess/);
    assert.throws(
      () => normaliseObservations({ observations: [{ date: "2020-13-45", value: "1" }] }),
      /observations .* at observations\.0\.date/,
    );
    assert.throws(() => normaliseTagNames({ tag: [] }), /tags/);
  });

  it("parses FRED timestamps with hour-only, full and colon offsets", () => {
    assert.equal(parseFredTimestamp("2026-03-27 07:57:03-05"), "2026-03-27T12:57:03.000Z");
    assert.equal(parseFredTimestamp("2026-03-27 07:57:03+0530"), "2026-03-27T02:27:03.000Z");
    assert.equal(parseFredTimestamp("2026-03-27 07:57:03+05:30"), "2026-03-27T02:27:03.000Z");
    assert.throws(() => parseFredTimestamp("2026-03-27"), /not YYYY-MM-DD HH:MM:SS±HH/);
    assert.throws(() => parseFredTimestamp("2026-02-31 07:57:03-05"), /not a valid date/);
    assert.throws(() => parseFredTimestamp("2026-13-01 07:57:03-05"), /not a valid date/);
  });

  it("reads tag names, and FRED's copyright classification among them", () => {
    const tags = normaliseTagNames(recorded("/fred/series/tags", "SP500"));
    assert.ok(tags.includes(PRE_APPROVAL_TAG));
    assert.equal(copyrightTag(tags), PRE_APPROVAL_TAG);
    assert.equal(
      copyrightTag(normaliseTagNames(recorded("/fred/series/tags", "GDP"))),
      "public domain: citation requested",
    );
  });
});

describe("the resale rule", () => {
  it("refuses a series FRED tags as pre-approval required", () => {
    const verdict = licenceVerdict("SP500", "", [PRE_APPROVAL_TAG, "daily"]);
    assert.equal(verdict.sellable, false);
    assert.match((verdict as { reason: string }).reason, /pre-approval required/);
  });

  it("refuses a series whose notes assert copyright and restrict reproduction, whatever the tags", () => {
    for (const notes of [
      "Copyright © 2026, Example Indices LLC. All rights reserved.",
      "Data (c) 2026 Example Corp. Reproduction is prohibited except with prior written permission.",
      "Copyright, 2026, Example Inc. This data may not be redistributed.",
    ]) {
      const verdict = licenceVerdict("X1", notes, ["copyrighted: citation required"]);
      assert.equal(verdict.sellable, false, notes);
      assert.match((verdict as { reason: string }).reason, /notes of X1 restrict/);
    }
  });

  it("sells public-domain and citation-required series, carrying their copyright line", () => {
    assert.deepEqual(
      licenceVerdict("GDP", "BEA Account Code: A191RC.", ["public domain: citation requested"]),
      {
        sellable: true,
        copyright: "public domain: citation requested",
        citation: null,
      },
    );
    const cited = licenceVerdict("X2", "Monthly survey. Copyright 2026, Example University. Cite as shown.", [
      "copyrighted: citation required",
    ]);
    assert.deepEqual(cited, {
      sellable: true,
      copyright: "copyrighted: citation required",
      citation: "Copyright 2026, Example University.",
    });
    // Restriction words without a copyright statement are not a refusal.
    assert.equal(licenceVerdict("X3", "Used with permission of the Board.", []).sellable, true);
  });
});

describe("API key scrubbing", () => {
  it("removes api_key from URLs and the key itself from any text", () => {
    const key = "abcdefghijklmnopqrstuvwxyz012345";
    assert.equal(
      withoutApiKey(`https://x/fred/series?series_id=GDP&api_key=${key}&file_type=json`, key),
      "https://x/fred/series?series_id=GDP&file_type=json",
    );
    assert.equal(withoutApiKey(`https://x/fred/series?api_key=${key}`, key), "https://x/fred/series");
    assert.equal(withoutApiKey(`failed: ${key} rejected`, key), "failed: [FRED_API_KEY] rejected");
  });
});
