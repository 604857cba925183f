// End to end: a real x402 buyer pays the weather routes through the local facilitator, with api.weather.gov
// played by a loopback server answering from the recordings; failures, bad input, the free routes, and every
// route's free sample offline (UPSTREAMS=replay).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { FieldDictionaryAnswer } from "../../catalog/field-dictionary.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import type { LoopbackUpstream } from "../npm/harness.test-helper.ts";
import { AlertsAnswer } from "./alerts.ts";
import { ForecastAnswer, NoaaAnswer, PointAnswer } from "./forecast.ts";
import { startRecordedUpstream } from "./harness.test-helper.ts";
import { WEATHER_RECORDINGS_DIR, weatherFamily } from "./index.ts";
import { ObservationAnswer } from "./observation.ts";
import { WeatherCoverageAnswer, WeatherStatusAnswer } from "./status.ts";

describe("paid weather routes end to end", () => {
  let nws: LoopbackUpstream;
  let service: TestService;
  const buyer = newBuyer();
  const agents = new Set<string>();

  before(async () => {
    nws = await startRecordedUpstream(WEATHER_RECORDINGS_DIR, "nws", (_url, request) => {
      agents.add(String(request.headers["user-agent"]));
      return undefined;
    });
    const env = {
      UPSTREAMS: "live",
      NWS_BASE_URL: nws.baseUrl,
      LOG_LEVEL: "silent",
      CONTACT_EMAIL: "ops@paycall.example",
    };
    service = await startTestService(env, [weatherFamily(loadConfig(env))]);
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  });
  after(async () => {
    await service.stop();
    await nws.close();
  });

  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const get = (path: string, params: Record<string, string>) =>
    payingFetch(buyer)(`${service.url}${path}?${new URLSearchParams(params)}`);

  it("asks for payment first and asks NWS nothing before", async () => {
    const response = await fetch(`${service.url}/v1/weather/noaa?lat=39.7456&lon=-97.0892`);
    assert.equal(response.status, 402);
    const headerBytes = [...response.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    assert.ok(headerBytes < 12_000, `${headerBytes} bytes of headers`);
    assert.equal(nws.requests.length, 0);
  });

  it("the bundle: point then forecast, fetched live, charged 0.01, with NWS's terms", async () => {
    const before = await balance();
    const response = await get("/v1/weather/noaa", { lat: "39.7456", lon: "-97.0892" });
    assert.equal(response.status, 200);
    const body = NoaaAnswer.parse(await response.json());
    assert.equal(body.point.wfo, "TOP");
    assert.equal(body.point.city, "Linn");
    assert.equal(body.periods.length, 4);
    assert.equal(body.now?.name, "This Afternoon");
    assert.equal(body.sources.length, 2);
    assert.match(body.licence.name, /Public domain/);
    assert.match(body.notice, /without warranty/);
    assert.equal(before - (await balance()), 10_000n);
    const agent = nws.requests.length;
    assert.equal(agent, 2);
  });

  it("point and forecast by lat/lon come from the cache; hourly costs 0.02", async () => {
    const point = PointAnswer.parse(
      await (await get("/v1/weather/point", { lat: "39.74561", lon: "-97.08921" })).json(),
    );
    assert.equal(point.point.gridX, 32);
    const forecast = ForecastAnswer.parse(
      await (await get("/v1/weather/forecast", { lat: "39.7456", lon: "-97.0892" })).json(),
    );
    assert.equal(forecast.kind, "12-hour");
    assert.equal(forecast.point?.timeZone, "America/Chicago");
    assert.equal(nws.requests.length, 2, "both answered from the cache");
    const before = await balance();
    const hourly = ForecastAnswer.parse(
      await (await get("/v1/weather/forecast-hourly", { wfo: "top", gridX: "32", gridY: "81" })).json(),
    );
    assert.equal(hourly.kind, "hourly");
    assert.equal(hourly.periods[0]?.relativeHumidityPct, 55);
    assert.equal(hourly.point, null);
    assert.equal(before - (await balance()), 20_000n);
  });

  it("observation by station and by nearest station", async () => {
    const byStation = ObservationAnswer.parse(
      await (await get("/v1/weather/observation", { stationId: "kmhk" })).json(),
    );
    assert.equal(byStation.temperature.value, 32.2);
    assert.equal(byStation.temperatureF, 90);
    assert.equal(byStation.windSpeedMph, 13.8);
    assert.equal(byStation.nearestTo, null);
    const nearest = ObservationAnswer.parse(
      await (await get("/v1/weather/observation", { lat: "39.7456", lon: "-97.0892" })).json(),
    );
    assert.equal(nearest.station.stationId, "KMHK");
    assert.deepEqual(nearest.nearestTo, { lat: 39.7456, lon: -97.0892 });
    assert.equal(nearest.sources.length, 3);
  });

  it("alerts by full state name; none active is match:false, still charged", async () => {
    const kansas = AlertsAnswer.parse(
      await (await get("/v1/weather/alerts-by-state", { state: "kansas" })).json(),
    );
    assert.equal(kansas.state.code, "KS");
    assert.equal(kansas.count, 1);
    assert.ok(
      nws.requests.some((u) => u.pathname === "/alerts/active" && u.searchParams.get("area") === "KS"),
    );
    const before = await balance();
    const colorado = AlertsAnswer.parse(
      await (await get("/v1/weather/alerts-by-state", { state: "COLORADO" })).json(),
    );
    assert.equal(colorado.match, false);
    assert.match(colorado.message ?? "", /no active alert for Colorado/);
    assert.equal(before - (await balance()), 10_000n);
  });

  it("a point NWS has no grid for is 404, a failing forecast 503: neither charged", async () => {
    const before = await balance();
    const outside = await get("/v1/weather/point", { lat: "43.6532", lon: "-79.3832" });
    assert.equal(outside.status, 404);
    const outsideBody = (await outside.json()) as Record<string, unknown>;
    assert.equal(outsideBody.charged, false);
    assert.match(String(outsideBody.message), /Data Unavailable For Requested Point/);
    const failing = await get("/v1/weather/forecast", { wfo: "MTR", gridX: "114", gridY: "128" });
    assert.equal(failing.status, 503);
    const failingBody = (await failing.json()) as Record<string, unknown>;
    assert.equal(failingBody.error, "upstream_unavailable");
    assert.equal(failingBody.charged, false);
    assert.equal(await balance(), before);
  });

  it("bad input is a 400 naming the parameter, before payment", async () => {
    const cases: Array<[string, string]> = [
      ["/v1/weather/noaa?lat=48.8566&lon=2.3522", "lon"],
      ["/v1/weather/noaa?lat=19.43&lon=-99.13", "lat"],
      ["/v1/weather/noaa?lat=abc&lon=-97", "lat"],
      ["/v1/weather/point?lat=39.7", "lon"],
      ["/v1/weather/forecast?wfo=TOP&gridX=32", "gridY"],
      ["/v1/weather/forecast-hourly?wfo=T0P&gridX=1&gridY=1", "wfo"],
      ["/v1/weather/forecast?lat=39.7&lon=-97&wfo=TOP", "wfo"],
      ["/v1/weather/observation?stationId=K%20TOP", "stationId"],
      ["/v1/weather/alerts-by-state?state=CO", "state"],
      ["/v1/weather/alerts-by-state?state=Ontario", "state"],
    ];
    for (const [path, parameter] of cases) {
      const response = await fetch(`${service.url}${path}`);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 400, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, parameter, path);
      assert.equal(response.headers.get("payment-required"), null);
    }
  });

  it("the User-Agent carries the operator's contact", async () => {
    const status = WeatherStatusAnswer.parse(
      await (await fetch(`${service.url}/v1/weather/noaa/status`)).json(),
    );
    assert.equal(status.userAgentHasContact, true);
    assert.deepEqual(
      [...agents].map((a) => a.includes("ops@paycall.example")),
      [true],
    );
    assert.equal(status.cache.point, 2);
    assert.equal(status.cache.forecast, 1);
    assert.equal(status.cache.hourly, 1);
    assert.match(status.upstreamFetches.lastError ?? "", /HTTP 500 from .*gridpoints\/MTR/);
  });

  it("coverage tree and field dictionary are free", async () => {
    const coverage = WeatherCoverageAnswer.parse(
      await (await fetch(`${service.url}/v1/weather/noaa/coverage`)).json(),
    );
    assert.equal(coverage.regions.length, 56);
    assert.equal(coverage.regions.find((r) => r.code === "KS")?.alertsCached, true);
    assert.deepEqual(coverage.offices, [
      { wfo: "TOP", cells: [{ gridX: 32, gridY: 81, forecast: true, hourly: true }] },
    ]);
    assert.deepEqual(coverage.stations, ["KMHK"]);
    const schema = FieldDictionaryAnswer.parse(
      await (await fetch(`${service.url}/v1/weather/noaa/schema`)).json(),
    );
    assert.equal(schema.products.length, 6);
    const observation = schema.products.find((p) => p.path === "/v1/weather/observation");
    const field = observation?.fields.find((f) => f.path === "temperature.value");
    assert.match(field?.description ?? "", /degC/);
    assert.equal(field?.nullable, true);
  });
});

describe("weather offline (UPSTREAMS=replay)", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({}, [weatherFamily(loadConfig({ UPSTREAMS: "replay" }))]);
  });
  after(() => service.stop());

  it("every route's free sample answers from the recordings and says it is a sample", async () => {
    const catalog = (await (await fetch(`${service.url}/catalog.json`)).json()) as {
      products: Array<{ sku: string; mode: string; freeSampleUrl?: string }>;
    };
    const paid = catalog.products.filter((p) => p.mode === "paid");
    assert.equal(paid.length, 6);
    for (const product of paid) {
      assert.ok(product.freeSampleUrl, product.sku);
      const url = new URL(product.freeSampleUrl);
      const response = await fetch(`${service.url}${url.pathname}${url.search}`);
      const body = (await response.json()) as { notice?: string };
      assert.equal(response.status, 200, `${product.sku}: ${JSON.stringify(body)}`);
      assert.match(body.notice ?? "", /^RECORDED SAMPLE, NOT LIVE DATA/, product.sku);
    }
  });
});
