import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../../test/family-harness.ts";
import { parseQuery } from "../../../catalog/input.ts";
import { ingest } from "../data/ingest.ts";
import type { PriceView } from "../data/views.ts";
import { call, openTestContext } from "../harness.test-helper.ts";
import { SkiCoverageAnswer, skiCoverage } from "./coverage.ts";
import { SkiInventoryAnswer, skiInventory } from "./inventory.ts";
import { SkiOperatorAnswer, skiOperator } from "./operator.ts";
import { SkiPricesAnswer, skiPrices } from "./prices.ts";
import { BULK_MAX_ROWS, SkiPricesBulkAnswer, skiPricesBulk } from "./prices-bulk.ts";
import { SkiQuoteAnswer, skiQuote } from "./quote.ts";
import { chooseQuote } from "./quote-rules.ts";
import { SkiResortAnswer, skiResort } from "./resort.ts";
import { SkiStatusAnswer, skiStatus } from "./status.ts";

function price(
  id: string,
  band: string,
  dates: Array<[string, string]>,
  type = "1-day",
  age = "adult",
  season = "2026/27",
): PriceView {
  return {
    id,
    season,
    seasonBand: band,
    bandDates: dates.map(([from, to]) => ({ from, to })),
    ticketType: type,
    ageBand: age,
    ageRange: null,
    price: 1,
    currency: "CHF",
    sourceUrl: "https://t.example/",
    collectedAt: "2026-10-01",
  };
}

const PRICES = [
  price("peak", "peak", [
    ["2026-12-20", "2027-01-06"],
    ["2027-02-07", "2027-03-08"],
  ]),
  price("low", "low", [["2026-11-28", "2026-12-19"]]),
  price("old-peak", "peak", [["2025-12-20", "2026-01-06"]], "1-day", "adult", "2025/26"),
  price(
    "child",
    "peak",
    [
      ["2026-12-20", "2027-01-06"],
      ["2027-02-07", "2027-03-08"],
    ],
    "1-day",
    "child",
  ),
  price("six", "low", [["2026-11-28", "2026-12-19"]], "6-day", "adult"),
];

describe("quote rules", () => {
  const choose = (q: Parameters<typeof chooseQuote>[1], today = "2026-12-01"): any =>
    chooseQuote(PRICES, q, today);

  it("the date selects the season band, across the band's separate ranges and seasons", () => {
    assert.equal(
      (choose({ ticketType: "1-day", ageBand: "adult", date: "2027-02-07" }) as { price: PriceView }).price
        .id,
      "peak",
    );
    assert.equal(
      (choose({ ticketType: "1-day", ageBand: "adult", date: "2027-01-06" }) as { price: PriceView }).price
        .id,
      "peak",
    );
    assert.equal(
      (choose({ ticketType: "1-day", ageBand: "adult", date: "2026-12-19" }) as { price: PriceView }).price
        .id,
      "low",
    );
    assert.equal(
      (choose({ ticketType: "1-day", ageBand: "adult", date: "2026-01-01" }) as { price: PriceView }).price
        .id,
      "old-peak",
    );
  });

  it("without date or season band, today's date selects it", () => {
    const choice = choose({ ticketType: "1-day", ageBand: "adult" }, "2026-12-01") as {
      price: PriceView;
      selectedBy: string;
      date: string;
    };
    assert.deepEqual([choice.price.id, choice.selectedBy, choice.date], ["low", "today", "2026-12-01"]);
  });

  it("a season band alone takes the latest season that has it", () => {
    const choice = choose({ ticketType: "1-day", ageBand: "adult", seasonBand: "peak" }) as {
      price: PriceView;
      selectedBy: string;
      date: null;
    };
    assert.deepEqual([choice.price.id, choice.selectedBy, choice.date], ["peak", "seasonBand", null]);
  });

  it("unknown ticket type, age band or season band → 400 listing the allowed values", () => {
    const type = choose({ ticketType: "3-day", ageBand: "adult" });
    assert.equal(type.status, 400);
    assert.deepEqual(
      [
        (type as { body: { parameter: string } }).body.parameter,
        (type as { body: { allowed: string[] } }).body.allowed,
      ],
      ["ticketType", ["1-day", "6-day"]],
    );
    assert.match(
      (type as { body: { message: string } }).body.message,
      /ticketType: "3-day" is not sold here; allowed: 1-day, 6-day/,
    );
    const age = choose({ ticketType: "1-day", ageBand: "senior" }) as {
      status: number;
      body: { parameter: string; allowed: string[] };
    };
    assert.deepEqual(
      [age.status, age.body.parameter, age.body.allowed],
      [400, "ageBand", ["adult", "child"]],
    );
    const band = choose({ ticketType: "1-day", ageBand: "adult", seasonBand: "shoulder" }) as {
      status: number;
      body: { parameter: string; allowed: string[] };
    };
    assert.deepEqual(
      [band.status, band.body.parameter, band.body.allowed],
      [400, "seasonBand", ["low", "peak"]],
    );
  });

  it("a date outside every band, or a missing combination, is a 404; a date contradicting seasonBand a 400", () => {
    const out = choose({ ticketType: "1-day", ageBand: "adult", date: "2027-07-01" }) as {
      status: number;
      body: { message: string; seasonBands: unknown[] };
    };
    assert.equal(out.status, 404);
    assert.match(out.body.message, /covers 2027-07-01: the date is outside every season band/);
    assert.equal(out.body.seasonBands.length, 3);
    const combo = choose({ ticketType: "6-day", ageBand: "child" }) as {
      status: number;
      body: { message: string };
    };
    assert.equal(combo.status, 404);
    const clash = choose({
      ticketType: "1-day",
      ageBand: "adult",
      date: "2026-12-01",
      seasonBand: "peak",
    }) as { status: number; body: { parameter: string } };
    assert.deepEqual([clash.status, clash.body.parameter], [400, "seasonBand"]);
  });
});

describe("ski endpoints over the sample dataset (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("quote: the price for a resort, ticket type, age band and date", async () => {
    const { status, body } = await call(
      skiQuote,
      {
        country: "ch",
        resort: "sample-alpenrose",
        ticketType: "1-day",
        ageBand: "Adult",
        date: "2027-02-14",
      },
      ctx,
    );
    assert.equal(status, 200);
    SkiQuoteAnswer.parse(body);
    assert.deepEqual(
      [body.season, body.seasonBand, body.price, body.currency, body.selectedBy, body.date],
      ["2026/27", "peak", 99, "CHF", "date", "2027-02-14"],
    );
    assert.equal(body.resort.resortId, "sample-alpenrose");
    assert.match(body.notice, /^SAMPLE DATA, NOT REAL/);
    const bad = await call(
      skiQuote,
      { country: "ch", resort: "sample-alpenrose", ticketType: "3-day", ageBand: "adult" },
      ctx,
    );
    assert.deepEqual(
      [bad.status, bad.body.parameter, bad.body.allowed],
      [400, "ticketType", ["1-day", "6-day"]],
    );
    const unknown = await call(
      skiQuote,
      { country: "ch", resort: "nowhere", ticketType: "1-day", ageBand: "adult" },
      ctx,
    );
    assert.deepEqual([unknown.status, unknown.body.error, unknown.body.charged], [404, "not_found", false]);
    const usd = (
      await call(
        skiQuote,
        {
          country: "us",
          resort: "sample-silver-peak",
          ticketType: "3-day",
          ageBand: "senior",
          seasonBand: "holiday",
        },
        ctx,
      )
    ).body;
    assert.deepEqual([usd.price, usd.currency, usd.season], [733, "USD", "2026/27"]);
  });

  it("prices: country without resort is a 400 pointing to the bulk endpoint, before payment", () => {
    const parsed = parseQuery(skiPrices, new URLSearchParams({ country: "ch" }));
    assert.equal(parsed.ok, false);
    const error = (parsed as any).error;
    assert.equal(error.status, 400);
    assert.equal(error.body.parameter, "resort");
    assert.equal(error.body.charged, false);
    assert.match(error.body.message, /resort: is required.*\/v1\/ski\/prices-bulk\?country=<cc>/);
  });

  it("prices: every price of one resort in a stable order", async () => {
    const { status, body } = await call(skiPrices, { country: "at", resort: "sample-arlberg-west" }, ctx);
    assert.equal(status, 200);
    SkiPricesAnswer.parse(body);
    assert.equal(body.count, 16);
    assert.deepEqual(body.prices[0], {
      id: "sample-arlberg-west-2025-26-pre-season-1-day-adult",
      season: "2025/26",
      seasonBand: "pre-season",
      bandDates: [{ from: "2025-12-04", to: "2025-12-19" }],
      ticketType: "1-day",
      ageBand: "adult",
      ageRange: "20-64",
      price: 68,
      currency: "EUR",
      sourceUrl: "https://sample-arlberg-west.example/tarife",
      collectedAt: "2025-10-20",
    });
    assert.equal((await call(skiPrices, { country: "ch", resort: "sample-arlberg-west" }, ctx)).status, 404);
  });

  it("resort: details, price summary and links; state narrows US resorts", async () => {
    const { body } = await call(skiResort, { country: "us", resort: "sample-silver-peak", state: "CO" }, ctx);
    SkiResortAnswer.parse(body);
    assert.equal(body.resort.state, "CO");
    assert.deepEqual(body.prices.ticketTypes, ["1-day", "3-day"]);
    assert.deepEqual(body.prices.ageBands, ["adult", "child", "senior"]);
    assert.deepEqual(body.prices.seasons, ["2025/26", "2026/27"]);
    assert.equal(body.prices.seasonBands.length, 4);
    assert.equal(
      body.links.tripMap,
      "http://localhost:4021/v1/trip/map?country=us&resort=sample-silver-peak",
    );
    assert.equal(
      (await call(skiResort, { country: "us", resort: "sample-silver-peak", state: "UT" }, ctx)).status,
      404,
    );
    assert.equal(
      (await call(skiResort, { country: "ch", resort: "sample-alpenrose", state: "CO" }, ctx)).body.parameter,
      "state",
    );
  });

  it("inventory: every resort or one country's, with price coverage", async () => {
    const all = (await call(skiInventory, {}, ctx)).body;
    SkiInventoryAnswer.parse(all);
    assert.deepEqual(
      all.resorts.map((r: { resortId: string; ticketPrices: number }) => [r.resortId, r.ticketPrices]),
      [
        ["sample-arlberg-west", 16],
        ["sample-alpenrose", 36],
        ["sample-silver-peak", 24],
      ],
    );
    const ch = (await call(skiInventory, { country: "ch" }, ctx)).body;
    assert.deepEqual([ch.country, ch.count, ch.match], ["ch", 1, true]);
    const none = (await call(skiInventory, { country: "fr" }, ctx)).body;
    assert.deepEqual([none.count, none.match, none.resorts], [0, false, []]);
  });

  it("operator: by part of the name, case and accents ignored; no match is a 200 with match:false", async () => {
    const { body } = await call(skiOperator, { name: "sample BERGBÄHNEN" }, ctx);
    SkiOperatorAnswer.parse(body);
    assert.deepEqual(
      body.resorts.map((r: { resortId: string }) => r.resortId),
      ["sample-arlberg-west", "sample-alpenrose"],
    );
    assert.deepEqual(body.countries, ["at", "ch"]);
    const none = (await call(skiOperator, { name: "Nobody Lifts" }, ctx)).body;
    assert.deepEqual([none.match, none.count], [false, 0]);
    assert.match(none.message, /No resort on file/);
  });

  it("prices-bulk: state required for the US and refused elsewhere; filters narrow the rows", async () => {
    const us = parseQuery(skiPricesBulk, new URLSearchParams({ country: "us" }));
    assert.equal((us as any).error.body.parameter, "state");
    const chState = parseQuery(skiPricesBulk, new URLSearchParams({ country: "ch", state: "CO" }));
    assert.equal((chState as any).error.body.parameter, "state");
    const co = (await call(skiPricesBulk, { country: "us", state: "co", ageBand: "senior" }, ctx)).body;
    SkiPricesBulkAnswer.parse(co);
    assert.deepEqual([co.totalCount, co.count, co.truncated, co.resorts], [8, 8, false, 1]);
    assert.ok(
      co.rows.every(
        (r: { ageBand: string; resortId: string }) =>
          r.ageBand === "senior" && r.resortId === "sample-silver-peak",
      ),
    );
    const tirol = (await call(skiPricesBulk, { country: "at", region: "TIROL", ticketType: "1-day" }, ctx))
      .body;
    assert.equal(tirol.count, 16);
    assert.equal((await call(skiPricesBulk, { country: "at", region: "Vorarlberg" }, ctx)).body.count, 0);
  });

  it("prices-bulk: at most 5000 rows, saying how many matched", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mountain-bulk-"));
    const resorts = Array.from({ length: 51 }, (_, i) => ({
      id: `bulk-${String(i).padStart(2, "0")}`,
      name: `Bulk ${i}`,
      country: "it",
      region: "Trentino",
      operator: "Bulk SpA",
      officialSite: "https://b.example/",
      officialBookingUrl: "https://b.example/b",
      priceListUrl: "https://b.example/p",
      currency: "EUR",
      lat: 46,
      lon: 11,
      location: "main_lift",
      locationName: "Lift",
    }));
    fs.writeFileSync(path.join(dir, "resorts.json"), JSON.stringify(resorts));
    await ingest(ctx.store, "resorts", path.join(dir, "resorts.json"));
    const lines = [
      "id,resort,season,seasonBand,bandDates,ticketType,ageBand,price,currency,sourceUrl,collectedAt",
    ];
    for (const r of resorts)
      for (let t = 0; t < 10; t++)
        for (let a = 0; a < 10; a++)
          lines.push(
            `${r.id}-${t}-${a},${r.id},2026/27,main,2026-12-01..2027-04-15,${t + 1}-day,age-${a},${40 + t + a},EUR,https://b.example/p,2026-10-01`,
          );
    fs.writeFileSync(path.join(dir, "prices.csv"), lines.join("\n"));
    assert.equal((await ingest(ctx.store, "ticket-prices", path.join(dir, "prices.csv"))).inserted, 5100);
    const body = (await call(skiPricesBulk, { country: "it" }, ctx)).body;
    assert.deepEqual(
      [body.totalCount, body.count, body.truncated, body.maxRows],
      [5100, BULK_MAX_ROWS, true, 5000],
    );
    assert.equal(body.rows.at(-1).resortId, "bulk-49");
    assert.equal((await call(skiPricesBulk, { country: "it", ageBand: "age-0" }, ctx)).body.truncated, false);
  });

  it("status and coverage: data per country; ?country= lists resort ids", async () => {
    const status = (await call(skiStatus, {}, ctx)).body;
    SkiStatusAnswer.parse(status);
    const ch = status.countries.find((c: { country: string }) => c.country === "ch");
    assert.deepEqual(ch, {
      country: "ch",
      resorts: 1,
      resortsWithPrices: 1,
      priceRows: 36,
      seasons: ["2025/26", "2026/27"],
      currencies: ["CHF"],
      latestCollectedAt: "2026-10-15",
      updatedAt: ch.updatedAt,
    });
    assert.equal(status.sampleData, true);
    const coverage = (await call(skiCoverage, {}, ctx)).body;
    SkiCoverageAnswer.parse(coverage);
    assert.equal(coverage.resortIds, undefined);
    assert.ok(
      coverage.countries.some(
        (c: { country: string; resortsWithPrices: number }) =>
          c.country === "us" && c.resortsWithPrices === 1,
      ),
    );
    const us = (await call(skiCoverage, { country: "us" }, ctx)).body;
    assert.deepEqual(us.resortIds, ["sample-silver-peak"]);
    assert.deepEqual(us.resortIdsWithPrices, ["sample-silver-peak"]);
  });
});
