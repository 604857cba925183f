import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../../test/family-harness.ts";
import { bumpOsmVersion } from "../data/data-version.ts";
import { mountainDb } from "../data/schema.ts";
import { openTestContext } from "../harness.test-helper.ts";
import { placeCatalog, placeDetails, withDetails } from "./place-catalog.ts";

/** More places than one page of the catalogue's read (10,000 rows), some in an area and a resort ring. */
const PLACES = 10_500;

describe("the place catalogue over more rows than one read", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
    const db = mountainDb(ctx.store);
    await db.deleteFrom("mountain_osm_places").execute();
    const row = (target: string, i: number) => ({
      target,
      id: `osm-node-${i}`,
      name: `${target} ${i}`,
      type: "restaurant",
      cuisine: null,
      address: null,
      lat: 46 + (i % 100) / 1000,
      lon: 7 + Math.floor(i / 100) / 1000,
      hours: null,
      phone: null,
      website: null,
      country: "ch",
      area: target.slice(target.indexOf(":") + 1),
      currency: "CHF",
      fetched_at: "2026-11-20T10:00:00.000Z",
      recorded_sample: 0,
    });
    const rows = [];
    for (let i = 0; i < PLACES; i++) {
      // Every 7th place is also in a resort's ring; in id order the first page of 10,000 rows ends on the two
      // rows of osm-node-8421, which the catalogue must read again with the next page, not lose.
      if (i % 7 === 0) rows.push(row("ring:zz-resort", i));
      rows.push(row("area:valley", i));
    }
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto("mountain_osm_places")
        .values(rows.slice(i, i + 500))
        .execute();
    await bumpOsmVersion(ctx.store);
  });
  after(() => ctx.close());

  it("holds every place once, with its area's row, findable by id and by position", async () => {
    const catalog = await placeCatalog(ctx);
    assert.equal(catalog.byId.size, PLACES);
    const ids = [0, 7, 1234, 9999, 10_000, 10_001, PLACES - 1].map((i) => `osm-node-${i}`);
    const details = await placeDetails(ctx, catalog, ids);
    for (const id of ids) {
      assert.equal(catalog.byId.get(id)?.name, `area:valley ${id.slice(9)}`, id);
      assert.equal(details.get(id)?.name, `area:valley ${id.slice(9)}`, id);
      assert.equal(details.get(id)?.area, "valley", id);
    }
    const { total } = catalog.index.near(46.05, 7.05, 50);
    assert.equal(total, PLACES);
  });

  it("reads the fields it does not hold from the store for the places an answer lists, in the hits' order", async () => {
    const db = mountainDb(ctx.store);
    await db
      .updateTable("mountain_osm_places")
      .set({ cuisine: '["regional"]', address: '{"city":"Zermatt"}', phone: "+41 27 000 00 00" })
      .where("id", "=", "osm-node-7")
      .where("target", "=", "area:valley")
      .execute();
    const catalog = await placeCatalog(ctx);
    const { hits } = catalog.index.near(46.007, 7, 0.05);
    const listed = await withDetails(ctx, catalog, [
      ...hits,
      { item: { ...hits[0]!.item, id: "osm-node-99999999" }, distanceKm: 0 },
    ]);
    assert.deepEqual(
      listed.map((h) => h.item.id),
      hits.map((h) => h.item.id),
      "the same hits, in order; an id the catalogue does not hold is left out",
    );
    const seventh = listed.find((h) => h.item.id === "osm-node-7")!;
    assert.deepEqual(
      [
        seventh.item.cuisine,
        seventh.item.address,
        seventh.item.phone,
        seventh.item.area,
        seventh.item.currency,
      ],
      [["regional"], { city: "Zermatt" }, "+41 27 000 00 00", "valley", "CHF"],
    );
    assert.equal(seventh.distanceKm, hits.find((h) => h.item.id === "osm-node-7")?.distanceKm);
  });

  it("leaves out a place whose rows left the store after the catalogue was built", async () => {
    const catalog = await placeCatalog(ctx);
    await mountainDb(ctx.store).deleteFrom("mountain_osm_places").where("id", "=", "osm-node-14").execute();
    const details = await placeDetails(ctx, catalog, ["osm-node-14", "osm-node-15"]);
    assert.deepEqual([...details.keys()], ["osm-node-15"]);
  });
});
