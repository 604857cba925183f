import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PlaceIndex } from "./place-index.ts";
import { type PlaceSummary, PlaceTable } from "./place-table.ts";

function place(id: string, overrides: Partial<PlaceSummary> = {}): PlaceSummary {
  return {
    id,
    name: `Place ${id}`,
    type: "restaurant",
    lat: 46,
    lon: 7.5,
    fetchedAt: "2026-11-20T10:00:00.000Z",
    recordedSample: false,
    menuItemCount: 0,
    ...overrides,
  };
}

const plain = (p: PlaceSummary) => ({ ...p });

describe("PlaceTable", () => {
  it("gives every place back as it was added, names of any script included", () => {
    const places = [
      place("osm-way-12", {
        name: "Bergrestaurant Gössweid – Café ☕",
        type: "cafe",
        lat: 46.0207,
        lon: 7.7491,
        recordedSample: true,
        menuItemCount: 7,
      }),
      place("osm-node-900000000901", { name: "Ресторан Эдельвейс", type: "bar" }),
      place("osm-relation-5", { name: "" }),
    ];
    const table = PlaceTable.of(places);
    assert.equal(table.size, 3);
    assert.deepEqual(
      [0, 1, 2].map((i) => plain(table.at(i))),
      places,
    );
    for (const p of places) assert.deepEqual(plain(table.get(p.id) as PlaceSummary), p);
    assert.deepEqual([...table.values()].map(plain), places);
    assert.equal(table.menuItemCount(0), 7);
    assert.equal(table.menuItemCount(1), 0);
    assert.deepEqual(table.menuTotals(), { withMenu: 1, menuItems: 7 });
    assert.equal(table.recordedSample(0), true);
  });

  it("finds places by id among many added in any order, and nothing for an id it does not hold", () => {
    const ids = Array.from(
      { length: 5000 },
      (_, i) => `osm-${["node", "way"][i % 2]}-${(i * 7919) % 100_003}`,
    );
    const table = new PlaceTable(1);
    for (const id of ids) table.push(place(id), 0);
    table.seal();
    assert.equal(table.size, ids.length);
    for (const id of ids.slice(0, 500)) assert.equal(table.get(id)?.id, id);
    assert.equal(table.has("osm-node-100004"), false);
    assert.equal(table.has("osm-relation-0"), false);
    assert.equal(table.get("not-an-osm-id"), undefined);
  });

  it("keeps more than 65,536 distinct repeated values (fetch times) apart", () => {
    const table = new PlaceTable(70_000);
    for (let i = 0; i < 70_000; i++) table.push(place(`osm-node-${i}`, { fetchedAt: `t${i}` }), 0);
    table.seal();
    assert.equal(table.at(69_999).fetchedAt, "t69999");
    assert.equal(table.at(65_536).fetchedAt, "t65536");
    assert.equal(table.at(3).fetchedAt, "t3");
  });

  it("refuses a place added twice and an id that is not OSM's", () => {
    const table = new PlaceTable(2);
    table.push(place("osm-node-1"), 0);
    table.push(place("osm-node-1"), 0);
    assert.throws(() => table.seal(), /osm-node-1 was added twice/);
    assert.throws(() => new PlaceTable(1).push(place("p1"), 0), /not an OSM place id: p1/);
  });

  it("costs far less than a place object: under 80 bytes a place with a 20-character name", () => {
    const table = new PlaceTable(10_000);
    for (let i = 0; i < 10_000; i++)
      table.push(
        place(`osm-node-${i}`, { name: `Gasthaus ${String(i).padStart(11, "x")}` }),
        i % 100 === 0 ? 3 : 0,
      );
    table.seal();
    assert.ok(table.byteLength / table.size < 80, `${table.byteLength / table.size} bytes a place`);
    assert.ok(table.byteLength / table.size > 40, "the coordinates and the name at least are counted");
  });

  it("serves as the spatial index's source: hits come back as places", () => {
    const table = PlaceTable.of([
      place("osm-node-1", { lat: 46.0, lon: 7.0 }),
      place("osm-node-2", { lat: 46.01, lon: 7.0, type: "bar" }),
      place("osm-node-3", { lat: 47.0, lon: 7.0 }),
    ]);
    const index = new PlaceIndex(table);
    const { total, hits } = index.near(46.0, 7.0, 5);
    assert.equal(total, 2);
    assert.deepEqual(
      hits.map((h) => h.item.id),
      ["osm-node-1", "osm-node-2"],
    );
    const bars = index.near(46.0, 7.0, 5, { filter: (p) => p.type === "bar" });
    assert.deepEqual([bars.total, bars.hits[0]?.item.name], [1, "Place osm-node-2"]);
  });
});
