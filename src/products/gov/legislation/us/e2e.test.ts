// End to end over HTTP: the US legislation route in a real service, paid through the local facilitator.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { payingFetch } from "../../../../../test/harness.ts";
import { itRefusesBeforePayment, serviceTest } from "../harness.test-helper.ts";
import { usLegislation } from "./index.ts";
import { US_ACT_QUEUE } from "./route.ts";

const e2e = serviceTest([usLegislation], { WORKER_POLL_MS: "20" });
const { balanceOf, fundedBuyer } = e2e;

describe("/v1/gov/us/legislation paid end to end", () => {
  it("the free sample answers offline", async () => {
    const response = await fetch(`${e2e.service.url}/v1/gov/us/legislation?q=electronic+records&sample=1`);
    assert.equal(response.status, 200);
    const body = e2e.answer("/v1/gov/us/legislation", await response.json());
    assert.equal(body.items?.[0]?.citation, "21 CFR 11.1");
  });

  it("a search is paid once and answered", async () => {
    const buyer = await fundedBuyer();
    const response = await payingFetch(buyer)(
      `${e2e.service.url}/v1/gov/us/legislation?q=electronic%20records`,
    );
    assert.equal(response.status, 200);
    assert.equal(e2e.answer("/v1/gov/us/legislation", await response.json()).count, 2);
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("an uncached id: 402, then 404 not_cached not charged, fetched by the job, then 200 charged", async () => {
    const unpaid = await fetch(`${e2e.service.url}/v1/gov/us/legislation?id=21/11/11.1`);
    assert.equal(unpaid.status, 402);
    const buyer = await fundedBuyer();
    const pay = payingFetch(buyer);
    const miss = await pay(`${e2e.service.url}/v1/gov/us/legislation?id=21/11/11.1`);
    assert.equal(miss.status, 404);
    const missBody = (await miss.json()) as Record<string, unknown>;
    assert.deepEqual([missBody.error, missBody.charged, missBody.retryAfterSec], ["not_cached", false, 60]);
    assert.equal(await balanceOf(buyer.address), 1_000_000n);
    await e2e.waitForJob(US_ACT_QUEUE, "21/11/11.1");
    const hit = await pay(`${e2e.service.url}/v1/gov/us/legislation?id=21%20CFR%2011.1`);
    assert.equal(hit.status, 200);
    const body = e2e.answer("/v1/gov/us/legislation", await hit.json());
    assert.deepEqual(
      [body.id, body.titleName, body.partName],
      ["21/11/11.1", "Food and Drugs", "Electronic Records; Electronic Signatures"],
    );
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  const cases: Array<[string, string]> = [
    ["", "q"],
    ["q=x&id=21/11/11.1", "id"],
    ["id=21-11", "id"],
    [`q=${"x".repeat(201)}`, "q"],
    ["q=x&per_page=5", "per_page"],
  ];
  itRefusesBeforePayment(e2e, "/v1/gov/us/legislation", cases, false);
});
