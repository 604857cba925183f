import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AlertsQuery, GridQuery, ObservationQuery, PointQuery, roundCoordinate } from "./query.ts";
import { regionsAt } from "./regions.ts";

function fault(result: {
  success: boolean;
  error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
}) {
  assert.equal(result.success, false);
  const issue = result.error?.issues[0];
  return { parameter: issue?.path.join("."), message: issue?.message ?? "" };
}

describe("weather query validation", () => {
  it("accepts points in the states and territories", () => {
    const inside: Array<[number, number, string]> = [
      [39.7456, -97.0892, "KS"],
      [61.2181, -149.9003, "AK"],
      [52.8, 173.2, "AK"], // Attu, west of the 180th meridian
      [21.3069, -157.8583, "HI"],
      [18.4655, -66.1057, "PR"],
      [13.4443, 144.7937, "GU"],
      [-14.275, -170.702, "AS"],
      [15.1778, 145.7508, "MP"],
      [18.3419, -64.9307, "VI"],
      [38.9072, -77.0369, "DC"],
      [24.5551, -81.78, "FL"],
    ];
    for (const [lat, lon, code] of inside) {
      assert.ok(
        regionsAt(lat, lon).some((r) => r.code === code),
        `${lat},${lon} in ${code}`,
      );
      assert.equal(
        PointQuery.safeParse({ lat: String(lat), lon: String(lon) }).success,
        true,
        `${lat},${lon}`,
      );
    }
  });

  it("refuses points elsewhere, naming the coordinate at fault", () => {
    assert.deepEqual(fault(PointQuery.safeParse({ lat: "48.8566", lon: "2.3522" })).parameter, "lon"); // Paris
    assert.deepEqual(fault(PointQuery.safeParse({ lat: "-33.86", lon: "-97.0" })).parameter, "lat");
    assert.deepEqual(fault(PointQuery.safeParse({ lat: "19.4326", lon: "-99.1332" })).parameter, "lat"); // Mexico City
    assert.match(fault(PointQuery.safeParse({ lat: "48.8566", lon: "2.3522" })).message, /outside the US/);
    assert.equal(fault(PointQuery.safeParse({ lat: "", lon: "-97" })).parameter, "lat");
    assert.equal(fault(PointQuery.safeParse({ lat: "39", lon: "abc" })).parameter, "lon");
    assert.equal(fault(PointQuery.safeParse({ lat: "91", lon: "-97" })).parameter, "lat");
    assert.equal(fault(PointQuery.safeParse({ lat: "1e309", lon: "-97" })).parameter, "lat");
    assert.equal(fault(PointQuery.safeParse({ lat: "39" })).parameter, "lon");
  });

  it("forecast: lat+lon or wfo+gridX+gridY, exactly one form, complete", () => {
    assert.deepEqual(GridQuery.parse({ wfo: "top", gridX: "32", gridY: "81" }), {
      wfo: "TOP",
      gridX: 32,
      gridY: 81,
    });
    assert.equal(fault(GridQuery.safeParse({})).parameter, "lat");
    assert.equal(fault(GridQuery.safeParse({ lat: "39.7", lon: "-97", wfo: "TOP" })).parameter, "wfo");
    assert.equal(fault(GridQuery.safeParse({ wfo: "TOP", gridX: "32" })).parameter, "gridY");
    assert.equal(fault(GridQuery.safeParse({ wfo: "TOPEKA", gridX: "1", gridY: "1" })).parameter, "wfo");
    assert.equal(fault(GridQuery.safeParse({ wfo: "TOP", gridX: "3.5", gridY: "1" })).parameter, "gridX");
    assert.equal(fault(GridQuery.safeParse({ wfo: "TOP", gridX: "", gridY: "1" })).parameter, "gridX");
    assert.equal(fault(GridQuery.safeParse({ wfo: "TOP", gridX: "1", gridY: "-1" })).parameter, "gridY");
  });

  it("observation: stationId or lat+lon", () => {
    assert.deepEqual(ObservationQuery.parse({ stationId: "katt" }), { stationId: "KATT" });
    assert.equal(fault(ObservationQuery.safeParse({})).parameter, "stationId");
    assert.equal(fault(ObservationQuery.safeParse({ stationId: "K-ATT" })).parameter, "stationId");
    assert.equal(
      fault(ObservationQuery.safeParse({ stationId: "KATT", lat: "30", lon: "-97" })).parameter,
      "stationId",
    );
  });

  it("state: the full English name in any case; a code is refused with its name", () => {
    assert.equal(AlertsQuery.parse({ state: "colorado" }).state.code, "CO");
    assert.equal(AlertsQuery.parse({ state: "NEW  YORK" }).state.code, "NY");
    assert.equal(AlertsQuery.parse({ state: "Puerto Rico" }).state.code, "PR");
    assert.equal(AlertsQuery.parse({ state: "District of Columbia" }).state.code, "DC");
    assert.equal(AlertsQuery.parse({ state: "u.s. virgin islands" }).state.code, "VI");
    assert.match(fault(AlertsQuery.safeParse({ state: "CO" })).message, /full name: Colorado/);
    assert.equal(fault(AlertsQuery.safeParse({ state: "Bavaria" })).parameter, "state");
    assert.equal(fault(AlertsQuery.safeParse({})).parameter, "state");
  });

  it("points are rounded to the four decimals NWS takes", () => {
    assert.equal(roundCoordinate(39.745612), "39.7456");
    assert.equal(roundCoordinate(-97.08921), "-97.0892");
    assert.equal(roundCoordinate(40), "40");
  });
});
