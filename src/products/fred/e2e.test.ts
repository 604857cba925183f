// End to end on loopback: the FRED family served alone, a real x402 buyer paying through the local facilitator.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { fredFamily } from "./index.ts";

let service: TestService;

before(async () => {
  const env = { FRED_SERIES: "UNRATE,DGS10" };
  service = await startTestService(env, [fredFamily(loadConfig({ UPSTREAMS: "replay", ...env }))]);
  await service.worker.runWarmer("fred.series");
});
after(() => service.stop());

test("a buyer pays /v1/macro/fred/series?id=unrate and gets the series; one settled ledger row", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const response = await payingFetch(buyer)(`${service.url}/v1/macro/fred/series?id=unrate`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.seriesId, "UNRATE");
  assert.equal((body.observations as unknown[]).length, body.count);
  assert.match(String(body.notice), /RECORDED SAMPLE/);
  assert.ok(response.headers.get("payment-response"));
  const rows = await service.store.ledger.list();
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.sku, "macro.fred.series");
  assert.equal(rows[0]?.state, "settled");
  assert.equal(rows[0]?.amount, "5000");
});

test("an uncached series: 404 not_cached, nothing charged, queued", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const response = await payingFetch(buyer)(`${service.url}/v1/macro/fred/series?seriesId=GDP`);
  assert.equal(response.status, 404);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.error, "not_cached");
  assert.equal(body.charged, false);
  assert.equal(body.retryAfterSec, 60);
  assert.equal(await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address), 1_000_000n);
  assert.equal((await service.store.jobs.get("fred-series", "GDP"))?.state, "queued");
});

test("bad input is a 400 naming the parameter, before any payment is asked", async () => {
  for (const query of ["seriesId=", "seriesId=GDP%3BDROP", "id=GDP&seriesId=UNRATE", "series=GDP"]) {
    const response = await fetch(`${service.url}/v1/macro/fred/series?${query}`);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(response.status, 400, query);
    assert.equal(response.headers.get("payment-required"), null);
    assert.equal(body.charged, false);
    assert.ok(["seriesId", "id", "series"].includes(String(body.parameter)), query);
  }
});

test("the free endpoints answer without payment", async () => {
  const status = (await (await fetch(`${service.url}/v1/macro/fred/status`)).json()) as Record<
    string,
    unknown
  >;
  assert.equal(status.cachedSeries, 2);
  assert.equal(status.mode, "replay");
  const coverage = (await (await fetch(`${service.url}/v1/macro/fred/coverage`)).json()) as {
    series: Array<{ seriesId: string }>;
  };
  assert.deepEqual(
    coverage.series.map((s) => s.seriesId),
    ["DGS10", "UNRATE"],
  );
});
