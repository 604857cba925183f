import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { destinationPoint, distanceKm } from "../shared/geo.ts";
import { PlaceIndex } from "./place-index.ts";

const centre = { lat: 46.024, lon: 7.748 };

function ring(kmList: number[]) {
  return kmList.map((km, i) => ({
    id: `p${i}`,
    km,
    ...destinationPoint(centre.lat, centre.lon, (i * 47) % 360, km),
  }));
}

describe("PlaceIndex.near", () => {
  it("returns every point within the radius, nearest first, with great-circle distances", () => {
    const points = ring([5, 0.3, 2.5, 1.999, 2.001, 0.05, 9.9, 10.1]);
    const index = new PlaceIndex(points);
    const { total, hits } = index.near(centre.lat, centre.lon, 2);
    assert.equal(total, 3);
    assert.deepEqual(
      hits.map((h) => h.item.km),
      [0.05, 0.3, 1.999],
    );
    for (const h of hits)
      assert.ok(Math.abs(h.distanceKm - h.item.km) < 1e-6, `${h.item.km} → ${h.distanceKm}`);
    assert.deepEqual(
      index.near(centre.lat, centre.lon, 10).hits.map((h) => h.item.km),
      [0.05, 0.3, 1.999, 2.001, 2.5, 5, 9.9],
    );
  });

  it("limit caps the list but total counts them all; beyondKm makes a ring; filter narrows", () => {
    const index = new PlaceIndex(ring([0.2, 0.999, 1.001, 3, 14.9, 15.1]));
    const limited = index.near(centre.lat, centre.lon, 15, { limit: 2 });
    assert.equal(limited.total, 5);
    assert.deepEqual(
      limited.hits.map((h) => h.item.km),
      [0.2, 0.999],
    );
    assert.deepEqual(
      index.near(centre.lat, centre.lon, 1).hits.map((h) => h.item.km),
      [0.2, 0.999],
    );
    assert.deepEqual(
      index.near(centre.lat, centre.lon, 15, { beyondKm: 1 }).hits.map((h) => h.item.km),
      [1.001, 3, 14.9],
    );
    assert.deepEqual(
      index.near(centre.lat, centre.lon, 15, { filter: (p) => p.km > 2 }).hits.map((h) => h.item.km),
      [3, 14.9],
    );
  });

  it("agrees with a linear scan on random points, across the antimeridian too", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    for (const origin of [
      centre,
      { lat: -16.5, lon: 179.95 },
      { lat: 89.99, lon: 20 },
      { lat: 46, lon: -179.999 },
    ]) {
      const points = Array.from({ length: 3000 }, (_, i) => ({
        id: i,
        ...destinationPoint(origin.lat, origin.lon, random() * 360, random() * 30),
      }));
      const index = new PlaceIndex(points);
      for (const radius of [0.5, 2, 10]) {
        const expected = points
          .map((p) => ({ id: p.id, d: distanceKm(origin.lat, origin.lon, p.lat, p.lon) }))
          .filter((p) => p.d <= radius)
          .sort((a, b) => a.d - b.d)
          .map((p) => p.id);
        assert.deepEqual(
          index.near(origin.lat, origin.lon, radius).hits.map((h) => h.item.id),
          expected,
          `radius ${radius}`,
        );
        const limited = index.near(origin.lat, origin.lon, radius, { limit: 7 });
        assert.equal(limited.total, expected.length, `total at radius ${radius}`);
        assert.deepEqual(
          limited.hits.map((h) => h.item.id),
          expected.slice(0, 7),
        );
        const beyond = radius / 3;
        const evenRing = points
          .map((p) => ({ id: p.id, d: distanceKm(origin.lat, origin.lon, p.lat, p.lon) }))
          .filter((p) => p.d > beyond && p.d <= radius && p.id % 2 === 0)
          .sort((a, b) => a.d - b.d)
          .map((p) => p.id);
        const ring = index.near(origin.lat, origin.lon, radius, {
          beyondKm: beyond,
          limit: 5,
          filter: (p) => p.id % 2 === 0,
        });
        assert.equal(ring.total, evenRing.length, `ring total at radius ${radius}`);
        assert.deepEqual(
          ring.hits.map((h) => h.item.id),
          evenRing.slice(0, 5),
        );
      }
    }
  });

  it("an empty index answers nothing", () => {
    assert.deepEqual(new PlaceIndex([]).near(0, 0, 10), { total: 0, hits: [] });
    assert.equal(new PlaceIndex([]).byteLength, 0);
  });
});
