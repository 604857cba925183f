import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { MOUNTAIN_RECORDINGS_DIR } from "../index.ts";
import { normaliseElements, normalisePlace, osmUrl } from "./normalise.ts";
import { bboxQuery, parseOverpassBody, ringQuery } from "./overpass.ts";

const recorded = (name: string) => fs.readFileSync(path.join(MOUNTAIN_RECORDINGS_DIR, name), "utf8");

describe("Overpass queries", () => {
  it("ask for the five amenity kinds in a bbox (south,west,north,east) or a ring in metres, with centres", () => {
    assert.equal(
      bboxQuery({ south: 45.98, west: 7.7, north: 46.06, east: 7.8 }),
      '[out:json][timeout:60];nwr["amenity"~"^(restaurant|cafe|bar|pub|fast_food)$"](45.98,7.7,46.06,7.8);out center tags;',
    );
    assert.equal(
      ringQuery(39.187, -106.818, 15),
      '[out:json][timeout:60];nwr["amenity"~"^(restaurant|cafe|bar|pub|fast_food)$"](around:15000,39.187,-106.818);out center tags;',
    );
    assert.equal(ringQuery(46.02400000001, 7.7480000004, 15), ringQuery(46.024, 7.748, 15), "stable text");
  });
});

describe("parseOverpassBody", () => {
  it("reads elements and the OSM base timestamp of a normal answer", () => {
    const parsed = parseOverpassBody(recorded("area-sample-alpenrose-valley.json"), "u");
    assert.equal(parsed.elements.length, 6);
    assert.equal(parsed.osmBase, "2026-11-20T10:12:03Z");
  });

  it("accepts an empty answer", () => {
    assert.deepEqual(
      parseOverpassBody(recorded("area-sample-gletscher-plateau-empty.json"), "u").elements,
      [],
    );
  });

  it("treats a remark inside an HTTP 200 as a failure, even with partial elements", () => {
    assert.throws(
      () => parseOverpassBody(recorded("area-sample-busy-range-error-in-200.json"), "u"),
      /overpass: query failed inside an HTTP 200: runtime error: Query timed out/,
    );
  });

  it("rejects HTML or XML error pages, broken JSON and JSON without elements", () => {
    assert.throws(
      () => parseOverpassBody("<?xml version='1.0'?><osm><remark>error</remark></osm>", "u"),
      /not JSON/,
    );
    assert.throws(() => parseOverpassBody("<html><body>Too many requests</body></html>", "u"), /not JSON/);
    assert.throws(() => parseOverpassBody('{"elements": [', "u"), /not valid JSON/);
    assert.throws(() => parseOverpassBody('{"version": 0.6}', "u"), /no elements array/);
  });
});

describe("normalisePlace", () => {
  it("maps tags to the spec's fields: cuisine split on ;, opening_hours → hours, addr:* → address", () => {
    const place = normalisePlace({
      type: "node",
      id: 42,
      lat: 46.1,
      lon: 7.5,
      tags: {
        amenity: "restaurant",
        name: " Chez Test ",
        cuisine: "regional; swiss;;pizza",
        opening_hours: "Mo-Su 11:00-22:00",
        "addr:street": "Dorfstrasse",
        "addr:housenumber": "3",
        "addr:city": "Testdorf",
        phone: "+41 1",
        website: "https://t.example/",
      },
    });
    assert.deepEqual(place, {
      id: "osm-node-42",
      name: "Chez Test",
      type: "restaurant",
      cuisine: ["regional", "swiss", "pizza"],
      address: { street: "Dorfstrasse", housenumber: "3", city: "Testdorf" },
      lat: 46.1,
      lon: 7.5,
      hours: "Mo-Su 11:00-22:00",
      phone: "+41 1",
      website: "https://t.example/",
    });
    assert.equal(osmUrl(place!.id), "https://www.openstreetmap.org/node/42");
  });

  it("takes a way's centre, contact:* fallbacks, and null for missing address and cuisine", () => {
    const place = normalisePlace({
      type: "way",
      id: 7,
      center: { lat: 46.2, lon: 7.6 },
      tags: {
        amenity: "pub",
        name: "The Way",
        "contact:phone": "+41 2",
        "contact:website": "https://w.example/",
      },
    });
    assert.equal(place?.id, "osm-way-7");
    assert.deepEqual(
      [place?.lat, place?.lon, place?.phone, place?.website],
      [46.2, 7.6, "+41 2", "https://w.example/"],
    );
    assert.equal(place?.cuisine, null);
    assert.equal(place?.address, null);
    assert.equal(place?.hours, null);
    assert.equal(osmUrl(place!.id), "https://www.openstreetmap.org/way/7");
  });

  it("skips unnamed places, other amenities, elements without coordinates and duplicates", () => {
    const { places, skipped } = normaliseElements([
      { type: "node", id: 1, lat: 1, lon: 1, tags: { amenity: "restaurant" } },
      { type: "node", id: 2, lat: 1, lon: 1, tags: { amenity: "bench", name: "Bench" } },
      { type: "way", id: 3, tags: { amenity: "cafe", name: "No centre" } },
      { type: "node", id: 4, lat: 1, lon: 1, tags: { amenity: "fast_food", name: "Kept" } },
      { type: "node", id: 4, lat: 1, lon: 1, tags: { amenity: "fast_food", name: "Kept" } },
      { type: "area", id: 5, lat: 1, lon: 1, tags: { amenity: "bar", name: "Odd type" } },
    ]);
    assert.deepEqual(
      places.map((p) => p.id),
      ["osm-node-4"],
    );
    assert.equal(skipped, 5);
  });

  it("normalises the recorded sample: five places, the unnamed one skipped", () => {
    const { places, skipped } = normaliseElements(
      parseOverpassBody(recorded("area-sample-alpenrose-valley.json"), "u").elements,
    );
    assert.deepEqual(
      places.map((p) => [p.id, p.type]),
      [
        ["osm-node-900000000001", "restaurant"],
        ["osm-node-900000000002", "cafe"],
        ["osm-node-900000000003", "bar"],
        ["osm-node-900000000004", "pub"],
        ["osm-way-900000000101", "restaurant"],
      ],
    );
    assert.equal(skipped, 1);
    assert.deepEqual(places[1]!.cuisine, ["coffee_shop", "cake"]);
  });
});
