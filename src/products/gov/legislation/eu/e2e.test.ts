// End to end over HTTP, offline (UPSTREAMS=replay): the free samples of the five routes
// (UK, Austria, EU, Switzerland, Australia), and the EU route paid through the local facilitator.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { payingFetch } from "../../../../../test/harness.ts";
import { atLegislation } from "../at/index.ts";
import { auLegislation } from "../au/index.ts";
import { chLegislation } from "../ch/index.ts";
import { CH_INDEX_QUEUE } from "../ch/route.ts";
import { gbLegislation } from "../gb/index.ts";
import { serviceTest } from "../harness.test-helper.ts";
import { euLegislation } from "./index.ts";
import { EU_ACT_QUEUE } from "./route.ts";
import { EU_INDEX_WARMER } from "./warmer.ts";

const e2e = serviceTest(
  [gbLegislation, atLegislation, euLegislation, chLegislation, auLegislation],
  { WORKER_POLL_MS: "20" },
  (service) => service.worker.runWarmer(EU_INDEX_WARMER),
);
const { balanceOf, fundedBuyer, jobDone } = e2e;

describe("gov legislation (gb, at, eu, ch, au) end to end", () => {
  it("every route's free sample answers offline, from recordings, with a match", async () => {
    for (const [path, q] of [
      ["/v1/gov/gb/legislation", "data protection"],
      ["/v1/gov/at/legislation", "Mietrechtsgesetz"],
      ["/v1/gov/eu/eurlex", "protection of personal data"],
      ["/v1/gov/au/legislation", "privacy"],
    ]) {
      const response = await fetch(
        `${e2e.service.url}${path}?${new URLSearchParams({ q: q as string, sample: "1" })}`,
      );
      assert.equal(response.status, 200, path);
      const body = (await response.json()) as { match: boolean; licence: { notice?: string } };
      assert.equal(body.match, true, path);
      assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/, path);
    }
  });

  it("the Swiss sample, before its index exists, queues the load and answers once it is loaded", async () => {
    const first = await fetch(`${e2e.service.url}/v1/gov/ch/legislation?q=Datenschutz&sample=1`);
    assert.equal(first.status, 404);
    assert.equal(((await first.json()) as { error: string }).error, "not_cached");
    await jobDone(CH_INDEX_QUEUE, "index");
    const second = await fetch(`${e2e.service.url}/v1/gov/ch/legislation?q=Datenschutz&sample=1`);
    assert.equal(second.status, 200);
    assert.equal(
      ((await second.json()) as { items: Array<{ srNumber: string }> }).items[0]?.srNumber,
      "235.1",
    );
  });

  it("an EU title search is paid once and answered from our index", async () => {
    const buyer = await fundedBuyer();
    const response = await payingFetch(buyer)(`${e2e.service.url}/v1/gov/eu/eurlex?q=consumer%20rights`);
    assert.equal(response.status, 200);
    assert.deepEqual(
      e2e.answer("/v1/gov/eu/eurlex", await response.json()).items?.map((i) => i.id),
      ["32011L0083"],
    );
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("an uncached CELEX: 402, then 404 not_cached not charged, fetched by the job, then 200 charged", async () => {
    const unpaid = await fetch(`${e2e.service.url}/v1/gov/eu/eurlex?id=32016R0679`);
    assert.equal(unpaid.status, 402);
    const buyer = await fundedBuyer();
    const pay = payingFetch(buyer);
    const miss = await pay(`${e2e.service.url}/v1/gov/eu/eurlex?id=32016R0679`);
    assert.equal(miss.status, 404);
    const missBody = (await miss.json()) as Record<string, unknown>;
    assert.deepEqual([missBody.error, missBody.charged, missBody.retryAfterSec], ["not_cached", false, 60]);
    assert.equal(await balanceOf(buyer.address), 1_000_000n);
    await jobDone(EU_ACT_QUEUE, "32016R0679");
    const hit = await pay(`${e2e.service.url}/v1/gov/eu/eurlex?id=CELEX:32016R0679`);
    assert.equal(hit.status, 200);
    const body = e2e.answer("/v1/gov/eu/eurlex", await hit.json());
    assert.deepEqual(
      [body.id, body.citation, body.inForce],
      ["32016R0679", "Regulation (EU) 2016/679", true],
    );
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("malformed ids are 400 naming id before payment, on every route", async () => {
    for (const path of [
      "/v1/gov/gb/legislation?id=ukpga-2018",
      "/v1/gov/at/legislation?id=MRG",
      "/v1/gov/eu/eurlex?id=2016/679",
      "/v1/gov/ch/legislation?id=DSG",
      "/v1/gov/au/legislation?id=Privacy",
    ]) {
      const response = await fetch(`${e2e.service.url}${path}`);
      assert.equal(response.status, 400, path);
      assert.equal(response.headers.get("payment-required"), null, path);
      assert.equal(((await response.json()) as { parameter: string }).parameter, "id", path);
    }
  });
});
