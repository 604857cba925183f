import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "./harness.test-helper.ts";
import {
  convert,
  NwsShapeError,
  normaliseAlerts,
  normaliseForecast,
  normaliseObservation,
  normalisePoint,
  normaliseStations,
  problemOf,
  windSpeedOf,
} from "./normalise.ts";
import { expiryFrom } from "./upstream.ts";

describe("NWS normalisers", () => {
  it("point: grid cell, place, zones, time zone, radar", () => {
    const point = normalisePoint(recordedBody("points-sample"));
    assert.deepEqual(
      { gridId: point.gridId, gridX: point.gridX, gridY: point.gridY, city: point.city, state: point.state },
      { gridId: "TOP", gridX: 32, gridY: 81, city: "Linn", state: "KS" },
    );
    assert.equal(point.distanceFromCityM, 7367);
    assert.equal(point.forecastZone, "KSZ009");
    assert.equal(point.county, "KSC201");
    assert.equal(point.timeZone, "America/Chicago");
    assert.equal(point.radarStation, "KTWX");
    assert.equal(point.lat, 39.7456);
  });

  it("12-hour forecast: °F and °C, worded wind parsed, null precipitation kept null", () => {
    const forecast = normaliseForecast(recordedBody("forecast-sample"));
    assert.equal(forecast.periods.length, 4);
    const [first, second, , fourth] = forecast.periods;
    assert.equal(first?.temperatureF, 91);
    assert.equal(first?.temperatureC, 32.8);
    assert.equal(first?.windSpeedMinMph, 10);
    assert.equal(first?.windSpeedMaxMph, 15);
    assert.equal(first?.precipitationProbabilityPct, 20);
    assert.equal(second?.precipitationProbabilityPct, null);
    assert.equal(second?.windSpeedMinMph, 5);
    assert.equal(fourth?.windSpeedMaxMph, 0);
    assert.equal(fourth?.windDirection, null);
    assert.equal(fourth?.temperatureTrend, "rising");
    assert.equal(first?.dewpointC, null);
    assert.equal(forecast.elevationM, 441.96);
  });

  it("hourly forecast: dewpoint and humidity, empty names are null", () => {
    const forecast = normaliseForecast(recordedBody("forecast-hourly-sample"));
    assert.equal(forecast.periods[0]?.name, null);
    assert.equal(forecast.periods[0]?.detailedForecast, null);
    assert.equal(forecast.periods[0]?.dewpointC, 21.67);
    assert.equal(forecast.periods[0]?.relativeHumidityPct, 55);
  });

  it("temperatures and winds as QuantitativeValues (NWS feature flags) are read too", () => {
    const body = JSON.stringify({
      properties: {
        periods: [
          {
            number: 1,
            startTime: "2025-07-21T13:00:00-05:00",
            endTime: "2025-07-21T14:00:00-05:00",
            temperature: { unitCode: "wmoUnit:degC", value: 30 },
            windSpeed: { unitCode: "wmoUnit:km_h-1", minValue: 16.09344, maxValue: 32.18688 },
          },
        ],
      },
    });
    const [period] = normaliseForecast(body).periods;
    assert.equal(period?.temperatureC, 30);
    assert.equal(period?.temperatureF, 86);
    assert.equal(period?.windSpeedMinMph, 10);
    assert.equal(period?.windSpeedMaxMph, 20);
  });

  it("stations nearest first", () => {
    const stations = normaliseStations(recordedBody("stations-sample"));
    assert.deepEqual(
      stations.map((s) => s.stationId),
      ["KMHK", "KTOP"],
    );
    assert.equal(stations[0]?.lat, 39.1409);
  });

  it("observation: units converted from each unitCode, quality flags kept and named", () => {
    const o = normaliseObservation(recordedBody("observation-sample"));
    assert.deepEqual(o.temperature, { value: 32.2, unit: "degC", qualityControl: "V", quality: "verified" });
    assert.equal(o.dewpoint.qualityControl, "V", "qc:V is read as V");
    assert.equal(o.windSpeed.value, 22.22);
    assert.deepEqual(o.windGust, {
      value: null,
      unit: "km/h",
      qualityControl: "Z",
      quality: "preliminary, no quality control",
    });
    assert.equal(o.barometricPressure.value, 1013.2);
    assert.equal(o.visibility.quality, "coarse pass");
    assert.deepEqual(o.cloudLayers, [{ amount: "CLR", baseM: null }]);
    assert.equal(o.stationId, "KMHK");
  });

  it("unit conversion reads the code and refuses units it does not know", () => {
    assert.equal(convert("temperature", 212, "wmoUnit:degF"), 100);
    assert.equal(convert("temperature", 273.15, "unit:K"), 0);
    assert.equal(convert("speed", 10, "wmoUnit:m_s-1"), 36);
    assert.equal(convert("speed", 10, "wmoUnit:kn"), 18.52);
    assert.equal(convert("pressure", 101325, "wmoUnit:Pa"), 1013.25);
    assert.equal(convert("precipitation", 0.0254, "wmoUnit:m"), 25.4);
    assert.equal(convert("temperature", 20, "wmoUnit:furlong"), null);
    assert.equal(convert("temperature", null, "wmoUnit:degC"), null);
    assert.deepEqual(windSpeedOf("gusty"), { text: "gusty", minMph: null, maxMph: null });
  });

  it("alerts: zone-based alert, ends null, zones as ids", () => {
    const list = normaliseAlerts(recordedBody("alerts-kansas"));
    assert.equal(list.alerts.length, 1);
    const [alert] = list.alerts;
    assert.equal(alert?.event, "Heat Advisory");
    assert.equal(alert?.ends, null);
    assert.deepEqual(alert?.affectedZones, ["KSZ035", "KSZ036"]);
    assert.equal(alert?.hasPolygon, false);
    assert.equal(normaliseAlerts(recordedBody("alerts-colorado-none")).alerts.length, 0);
  });

  it("problem+json bodies and broken documents", () => {
    assert.equal(problemOf(recordedBody("forecast-500")).title, "Unexpected Problem");
    assert.equal(problemOf("<html>").title, null);
    assert.throws(() => normalisePoint(recordedBody("points-outside-grid")), NwsShapeError);
    assert.throws(() => normaliseForecast("{}"), NwsShapeError);
  });

  it("Expires is honoured within bounds; without it the fallback applies", () => {
    const now = new Date("2025-07-21T18:00:00Z");
    const at = (headers: Record<string, string>) => expiryFrom(new Headers(headers), 3600_000, now);
    assert.equal(at({ expires: "Mon, 21 Jul 2025 18:10:00 GMT" }), "2025-07-21T18:10:00.000Z");
    assert.equal(at({}), "2025-07-21T19:00:00.000Z");
    assert.equal(at({ expires: "Mon, 21 Jul 2025 17:00:00 GMT" }), "2025-07-21T18:00:30.000Z");
    assert.equal(at({ expires: "Tue, 21 Jul 2026 17:00:00 GMT" }), "2025-07-22T00:00:00.000Z");
  });
});
