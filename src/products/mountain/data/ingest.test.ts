import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../../test/family-harness.ts";
import { openTestContext } from "../harness.test-helper.ts";
import { IngestError, ingest } from "./ingest.ts";
import { loadSampleData, SAMPLE_DATA_DIR } from "./sample-data.ts";
import { mountainDb } from "./schema.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mountain-ingest-"));
function file(name: string, text: string): string {
  const full = path.join(dir, name);
  fs.writeFileSync(full, text);
  return full;
}

async function problemsOf(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof IngestError, `expected an IngestError, got ${String(error)}`);
    assert.match(error.message, /nothing was imported/);
    for (const problem of error.problems) assert.ok(error.message.includes(problem));
    return error.problems;
  }
  assert.fail("the import was expected to fail");
}

async function count(
  ctx: FamilyTestContext,
  table: "mountain_resorts" | "mountain_ticket_prices" | "mountain_menu_items" | "mountain_areas",
) {
  const row = await mountainDb(ctx.store)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const RESORT_HEADER =
  "id,name,country,region,state,area,operator,officialSite,officialBookingUrl,priceListUrl,currency,lat,lon,location,locationName";
const resortRow = (id: string, over: Partial<Record<string, string>> = {}) => {
  const v = {
    id,
    name: `Test ${id}`,
    country: "ch",
    region: "Valais",
    state: "",
    area: "",
    operator: "Test AG",
    officialSite: "https://t.example/",
    officialBookingUrl: "https://t.example/b",
    priceListUrl: "https://t.example/p",
    currency: "CHF",
    lat: "46.1",
    lon: "7.5",
    location: "main_lift",
    locationName: "Test lift",
    ...over,
  };
  return RESORT_HEADER.split(",")
    .map((k) => v[k as keyof typeof v])
    .join(",");
};

describe("ingest of the sample dataset (live mode: nothing is loaded by itself)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext({ UPSTREAMS: "live" });
  });
  after(() => ctx.close());

  it("imports every sample file, in JSON and CSV, and counts what it inserted", async () => {
    const results = [];
    for (const [kind, name] of [
      ["areas", "areas.csv"],
      ["resorts", "resorts.json"],
      ["ticket-prices", "ticket-prices.csv"],
      ["menus", "menus.json"],
      ["menu-items", "menu-items.csv"],
      ["corridors", "corridors.json"],
      ["insider-tips", "insider-tips.json"],
    ] as const) {
      results.push(await ingest(ctx.store, kind, path.join(SAMPLE_DATA_DIR, name)));
    }
    assert.deepEqual(
      results.map((r) => [r.kind, r.rows, r.inserted, r.updated]),
      [
        ["areas", 2, 2, 0],
        ["resorts", 3, 3, 0],
        ["ticket-prices", 76, 76, 0],
        ["menus", 5, 5, 0],
        ["menu-items", 19, 19, 0],
        ["corridors", 1, 1, 0],
        ["insider-tips", 5, 5, 0],
      ],
    );
  });

  it("is idempotent: importing the same files again updates every row and adds none", async () => {
    const before = await count(ctx, "mountain_ticket_prices");
    const again = await ingest(ctx.store, "ticket-prices", path.join(SAMPLE_DATA_DIR, "ticket-prices.csv"));
    assert.deepEqual(again, { kind: "ticket-prices", rows: 76, inserted: 0, updated: 76 });
    assert.equal(await count(ctx, "mountain_ticket_prices"), before);
    await loadSampleData(ctx.store);
    assert.equal(await count(ctx, "mountain_resorts"), 3);
    assert.equal(await count(ctx, "mountain_menu_items"), 19);
  });

  it("stores every field of a record", async () => {
    const row = await mountainDb(ctx.store)
      .selectFrom("mountain_resorts")
      .selectAll()
      .where("id", "=", "sample-silver-peak")
      .executeTakeFirstOrThrow();
    assert.equal(row.state, "CO");
    assert.equal(row.area, null);
    assert.equal(Number(row.lat), 39.187);
    assert.equal(row.location, "ticket_office");
    assert.equal(Number(row.sample), 1);
    const price = await mountainDb(ctx.store)
      .selectFrom("mountain_ticket_prices")
      .selectAll()
      .where("id", "=", "sample-alpenrose-2025-26-peak-6-day-child")
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(price.band_dates), [
      { from: "2025-12-20", to: "2026-01-06" },
      { from: "2026-02-07", to: "2026-03-08" },
    ]);
    assert.equal(Number(price.price), 225);
  });

  it("a menu-items file holds the whole menu of each restaurant it names: other items go", async () => {
    const items = file(
      "items.csv",
      "id,menu,name,price\nsample-edelweiss-rosti,osm-node-900000000001,Sample Rösti,26\nnew-item,osm-node-900000000001,Sample Tagessuppe,9\n",
    );
    const result = await ingest(ctx.store, "menu-items", items);
    assert.deepEqual(result, { kind: "menu-items", rows: 2, inserted: 1, updated: 1 });
    const rows = await mountainDb(ctx.store)
      .selectFrom("mountain_menu_items")
      .selectAll()
      .where("menu_id", "=", "osm-node-900000000001")
      .execute();
    assert.deepEqual(rows.map((r) => [r.id, Number(r.price), r.currency, Number(r.position)]).sort(), [
      ["new-item", 9, "CHF", 1],
      ["sample-edelweiss-rosti", 26, "CHF", 0],
    ]);
    // Other restaurants' menus are untouched.
    assert.equal(await count(ctx, "mountain_menu_items"), 19 - 5 + 2);
  });
});

describe("ingest rejects bad files whole, naming file, line and field", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext({ UPSTREAMS: "live" });
    await loadSampleData(ctx.store);
  });
  after(() => ctx.close());

  it("CSV: every bad row is listed with its line and field, and nothing is imported", async () => {
    const csv = file(
      "resorts.csv",
      [
        RESORT_HEADER,
        resortRow("good-one"),
        resortRow("bad-lat", { lat: "123" }),
        "",
        resortRow("Bad Id"),
        resortRow("us-no-state", { country: "us", currency: "USD" }),
        resortRow("ch-with-state", { state: "CO" }),
        resortRow("bad-url", { officialSite: "not a url", currency: "chf" }),
        resortRow("good-one"),
        resortRow("no-area", { area: "no-such-area" }),
      ].join("\n"),
    );
    const problems = await problemsOf(ingest(ctx.store, "resorts", csv));
    assert.deepEqual(problems, [
      `${csv}:3: lat: must be a number from -90 to 90`,
      `${csv}:5: id: must be a lower-case slug (letters, digits, hyphens), e.g. sample-alpenrose`,
      `${csv}:6: state: is required for US resorts`,
      `${csv}:7: state: is for US resorts only; leave it empty`,
      `${csv}:8: officialSite: must be an http(s) URL`,
      `${csv}:8: currency: must be an upper-case ISO 4217 currency code, e.g. CHF`,
      `${csv}:9: id: "good-one" appears twice (first on line 2)`,
      `${csv}:10: area: unknown area "no-such-area"; import it first`,
    ]);
    assert.equal(await count(ctx, "mountain_resorts"), 3, "the good row was not imported either");
  });

  it("CSV: reference problems are found once the rows themselves are valid", async () => {
    const csv = file(
      "resorts-ref.csv",
      [
        RESORT_HEADER,
        resortRow("good-two"),
        resortRow("no-area", { area: "no-such-area" }),
        resortRow("wrong-country", { area: "sample-gletscher-plateau" }),
      ].join("\n"),
    );
    assert.deepEqual(await problemsOf(ingest(ctx.store, "resorts", csv)), [
      `${csv}:3: area: unknown area "no-such-area"; import it first`,
      `${csv}:4: area: area "sample-gletscher-plateau" is in at, not ch`,
    ]);
    assert.equal(await count(ctx, "mountain_resorts"), 3);
  });

  it("CSV: a quoted value spanning lines still reports the line its record starts on; unknown columns are named", async () => {
    const csv = file(
      "tips.csv",
      'id,country,date,language,kind,text,colour\ntip-a,ch,2026-01-01,de,snow,"line one\nline two",red\ntip-b,ch,2026-13-01,de,snow,ok,blue\n',
    );
    const problems = await problemsOf(ingest(ctx.store, "insider-tips", csv));
    assert.equal(
      problems[0],
      `${csv}:1: colour: unknown column; the fields are id, resort, country, date, validUntil, language, kind, title, text, sourceUrl, sample`,
    );
    assert.equal(problems[1], `${csv}:4: date: must be a real calendar date YYYY-MM-DD`);
    assert.equal(problems.length, 2);
  });

  it("JSON: records are located by the line they start on; unknown and missing fields are named", async () => {
    const json = file(
      "menus.json",
      `[
  {
    "id": "osm-node-1", "mealPeriods": ["lunch"], "sourceKind": "website", "sourceUrl": "https://m.example/",
    "menuType": "a-la-carte", "menuDate": "2026-01-01", "collectedAt": "2026-01-02", "currency": "CHF"
  },
  { "id": "osm-node-2", "mealPeriods": [], "sourceKind": "delivery_app", "sourceUrl": "https://m.example/",
    "menuType": "a-la-carte", "menuDate": "2026-01-01", "collectedAt": "2026-01-02", "currency": "CHF", "colour": "red" },
  {"id": "restaurant-3", "mealPeriods": "lunch;dinner", "sourceKind": "fax", "menuType": "set",
   "menuDate": "2026-01-01", "collectedAt": "2026-01-02", "currency": "EUR"}
]`,
    );
    assert.deepEqual(await problemsOf(ingest(ctx.store, "menus", json)), [
      `${json}:6: mealPeriods: must name at least one meal period`,
      `${json}:6: colour: unknown field; the fields are id, mealPeriods, sourceKind, sourceApp, sourceUrl, menuType, menuDate, collectedAt, currency, sample`,
      `${json}:6: sourceApp: is required when sourceKind is delivery_app`,
      `${json}:8: id: must be an OSM restaurant id such as osm-node-123456`,
      `${json}:8: sourceKind: must be one of website, delivery_app`,
      `${json}:8: sourceUrl: is required`,
    ]);
  });

  it("JSON: a syntax error names its line; a non-array file is refused", async () => {
    const broken = file("broken.json", '[\n  {"id": "a"},\n  {"id": }\n]');
    const [problem] = await problemsOf(ingest(ctx.store, "areas", broken));
    assert.match(
      problem!,
      new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: \\(file\\): not valid JSON`),
    );
    const object = file("object.json", '{"id": "a"}');
    assert.deepEqual(await problemsOf(ingest(ctx.store, "areas", object)), [
      `${object}:1: (file): must be a JSON array of records: [ { … }, { … } ]`,
    ]);
  });

  it("ticket prices: unknown resorts, overlapping bands, inconsistent band dates and duplicate prices", async () => {
    const header =
      "id,resort,season,seasonBand,bandDates,ticketType,ageBand,price,currency,sourceUrl,collectedAt";
    const row = (
      id: string,
      resort: string,
      band: string,
      dates: string,
      type = "1-day",
      age = "adult",
      season = "2027/28",
    ) => `${id},${resort},${season},${band},${dates},${type},${age},50,CHF,https://t.example/p,2027-10-01`;
    const csv = file(
      "prices.csv",
      [
        header,
        row("p1", "sample-alpenrose", "peak", "2027-12-20..2028-01-06"),
        row("p2", "no-such-resort", "peak", "2027-12-20..2028-01-06"),
        row("p3", "sample-alpenrose", "low", "2028-01-01..2028-01-31"),
        row("p4", "sample-alpenrose", "peak", "2027-12-21..2028-01-06", "1-day", "child"),
        row("p5", "sample-alpenrose", "peak", "2027-12-20..2028-01-06"),
        row("p6", "sample-alpenrose", "peak", "2027-12-20..2028-01-06", "1-day", "youth", "2027/29"),
        row("p7", "sample-alpenrose", "peak", "2028-01-06..2027-12-20", "1-day", "senior"),
      ].join("\n"),
    );
    assert.deepEqual(await problemsOf(ingest(ctx.store, "ticket-prices", csv)), [
      `${csv}:3: resort: unknown resort "no-such-resort"; import it first`,
      `${csv}:4: bandDates: season bands "peak" and "low" of sample-alpenrose 2027/28 overlap; a date must select one band`,
      `${csv}:5: bandDates: differs from the dates other rows give season band "peak" of sample-alpenrose 2027/28`,
      `${csv}:6: id: another row already prices sample-alpenrose 2027/28 peak 1-day adult; use its id to replace it`,
      `${csv}:7: season: must be two consecutive years, e.g. 2025/26`,
      `${csv}:8: bandDates.0: from must not be after to`,
    ]);
  });

  it("refuses an unknown kind, an unreadable file and an empty one", async () => {
    const csv = file("x.csv", "id\n");
    assert.deepEqual(await problemsOf(ingest(ctx.store, "restaurants", csv)), [
      `${csv}: kind: unknown kind "restaurants"; the kinds are areas, resorts, ticket-prices, menus, menu-items, corridors, insider-tips`,
    ]);
    assert.deepEqual(await problemsOf(ingest(ctx.store, "areas", csv)), [
      `${csv}:1: (file): holds no records`,
    ]);
    const missing = path.join(dir, "missing.csv");
    const [problem] = await problemsOf(ingest(ctx.store, "areas", missing));
    assert.match(problem!, /missing\.csv:0: \(file\): cannot be read/);
    assert.deepEqual(await problemsOf(ingest(ctx.store, "areas", file("areas.txt", "x"))), [
      `${path.join(dir, "areas.txt")}:0: (file): must end in .json or .csv`,
    ]);
  });

  it("areas: a reversed or oversized box, and a country without a default currency", async () => {
    const csv = file(
      "areas-bad.csv",
      "id,name,country,region,south,west,north,east\nflip,Flip,ch,Valais,46.1,7.5,46.0,7.6\nhuge,Huge,ch,Valais,45,6,48,7\nmars,Mars,zz,Nowhere,1,1,1.5,1.5\n",
    );
    assert.deepEqual(await problemsOf(ingest(ctx.store, "areas", csv)), [
      `${csv}:2: north: must be above south`,
      `${csv}:3: north: the box spans more than 2 degrees; split it into smaller areas`,
      `${csv}:4: currency: is required for country zz`,
    ]);
    assert.equal(await count(ctx, "mountain_areas"), 2);
  });
});
