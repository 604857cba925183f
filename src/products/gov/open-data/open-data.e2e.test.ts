// Open-data routes end to end over HTTP, paid through the local facilitator, on the CKAN recordings.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../../test/harness.ts";
import { loadConfig } from "../../../config.ts";
import { creditWallet } from "../../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../../x402/shared/networks.ts";
import { GovIndexAnswer } from "../index/gov-index.ts";
import { govIndexFamily } from "../index/index.ts";
import { openDataAnswer } from "./dataset.ts";
import { govOpenDataFamily } from "./index.ts";

let service: TestService;
const Answer = openDataAnswer();

before(async () => {
  const env = { WORKER_POLL_MS: "20" };
  const config = loadConfig({ UPSTREAMS: "replay", ...env });
  service = await startTestService(env, [
    govOpenDataFamily(config),
    govIndexFamily([govOpenDataFamily])(config),
  ]);
});
after(() => service.stop());

async function fundedBuyer() {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  return buyer;
}
const balance = (address: string) => service.store.localUsdc.balance(NETWORKS.base.caip2, address);

describe("GET /v1/gov/<cc>/open-data", () => {
  it("the free sample answers offline: a search with its hash, totals, the portal licence and the sample notice", async () => {
    const response = await fetch(`${service.url}/v1/gov/gb/open-data?q=air+quality&sample=1`);
    assert.equal(response.status, 200);
    const body = Answer.parse(await response.json());
    assert.equal(body.sku, "gov.gb.open-data");
    assert.equal(body.family, "open_data");
    assert.equal(body.query, "air quality");
    assert.match(body.hash ?? "", /^[0-9a-f]{12}$/);
    assert.equal(body.totalCount, 314);
    assert.equal(body.count, 2);
    assert.equal(body.match, true);
    assert.equal(body.items?.[0]?.title, "Sample Air Quality Statistics");
    assert.equal(body.licence.name, "Open Government Licence v3.0");
    assert.match(body.licence.notice ?? "", /RECORDED SAMPLE, NOT LIVE DATA/);
  });

  it("equal questions share one cache entry and one hash", async () => {
    const buyer = await fundedBuyer();
    const pay = payingFetch(buyer);
    const a = Answer.parse(
      await (await pay(`${service.url}/v1/gov/jp/open-data?q=%E4%BA%BA%E5%8F%A3`)).json(),
    );
    const b = Answer.parse(
      await (await pay(`${service.url}/v1/gov/jp/open-data?q=%20%E4%BA%BA%E5%8F%A3%20`)).json(),
    );
    assert.equal(a.hash, b.hash);
    assert.equal(a.fetchedAt, b.fetchedAt, "the second answer came from the cache");
    assert.equal(a.items?.[0]?.title, "人口推計（サンプル）");
  });

  it("a search without hits is 200 match:false with a message, and it is charged", async () => {
    const buyer = await fundedBuyer();
    const response = await payingFetch(buyer)(`${service.url}/v1/gov/au/open-data?q=qqqzzzxxy`);
    assert.equal(response.status, 200);
    const body = Answer.parse(await response.json());
    assert.deepEqual([body.match, body.count, body.totalCount], [false, 0, 0]);
    assert.match(body.message ?? "", /No dataset on data\.gov\.au \(CKAN\) matches "qqqzzzxxy"/);
    assert.equal(await balance(buyer.address), 1_000_000n - 5000n);
  });

  it("a portal that answers a maintenance page or an error is a 503, not charged", async () => {
    const buyer = await fundedBuyer();
    const maintenance = await payingFetch(buyer)(`${service.url}/v1/gov/de/open-data?q=wartung`);
    assert.equal(maintenance.status, 503);
    assert.equal(((await maintenance.json()) as { charged: boolean }).charged, false);
    const broken = await payingFetch(buyer)(
      `${service.url}/v1/gov/au/open-data?q=${encodeURIComponent("title:[broken")}`,
    );
    assert.equal(broken.status, 503);
    assert.equal(await balance(buyer.address), 1_000_000n);
  });

  it("one dataset: 402, then 404 not cached and queued, then the dataset once the job ran", async () => {
    const url = `${service.url}/v1/gov/gb/open-data?id=sample-air-quality-statistics`;
    assert.equal((await fetch(url)).status, 402);
    const buyer = await fundedBuyer();
    const miss = await payingFetch(buyer)(url);
    assert.equal(miss.status, 404);
    const missBody = (await miss.json()) as { error: string; charged: boolean; retryAfterSec: number };
    assert.deepEqual([missBody.error, missBody.charged, missBody.retryAfterSec], ["not_cached", false, 60]);
    assert.equal(await balance(buyer.address), 1_000_000n);
    await service.worker.drain();
    const hit = await payingFetch(buyer)(url);
    assert.equal(hit.status, 200);
    const body = Answer.parse(await hit.json());
    assert.equal(body.found, true);
    assert.equal(body.title, "Sample Air Quality Statistics");
    assert.deepEqual(body.keywords, ["air quality", "pollution"]);
    assert.equal(body.resources?.length, 2);
    assert.equal(body.dataLicence?.id, "uk-ogl");
    assert.equal(await balance(buyer.address), 1_000_000n - 5000n);
  });

  it("a dataset the portal does not have is a 404 not_found after the lookup, never charged", async () => {
    const buyer = await fundedBuyer();
    const url = `${service.url}/v1/gov/gb/open-data?id=no-such-dataset`;
    assert.equal((await payingFetch(buyer)(url)).status, 404);
    await service.worker.drain();
    const gone = await payingFetch(buyer)(url);
    assert.equal(gone.status, 404);
    assert.equal(((await gone.json()) as { error: string }).error, "not_found");
    assert.equal(await balance(buyer.address), 1_000_000n);
  });

  it("refuses bad input before payment, naming the parameter", async () => {
    const cases: Array<[string, string]> = [
      ["q=air&id=abc", "id"],
      ["id=%2Fetc%2Fpasswd", "id"],
      ["q=%00", "q"],
      [`q=${"x".repeat(201)}`, "q"],
    ];
    for (const [query, parameter] of cases) {
      const response = await fetch(`${service.url}/v1/gov/ch/open-data?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.headers.get("payment-required"), null);
      assert.equal(((await response.json()) as { parameter: string }).parameter, parameter, query);
    }
  });

  it("GET /v1/gov lists the portals, live once they answered", async () => {
    const body = GovIndexAnswer.parse(await (await fetch(`${service.url}/v1/gov`)).json());
    const gb = body.routes.find((r) => r.path === "/v1/gov/gb/open-data");
    assert.equal(gb?.state, "live");
    assert.equal(gb?.upstream, "data.gov.uk (CKAN)");
    const cz = body.routes.find((r) => r.path === "/v1/gov/cz/open-data");
    assert.ok(cz, "every country of the spec is listed");
  });
});
