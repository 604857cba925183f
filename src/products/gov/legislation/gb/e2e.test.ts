// End to end over HTTP: the UK legislation route in a real service, paid through the local facilitator.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { payingFetch } from "../../../../../test/harness.ts";
import { serviceTest } from "../harness.test-helper.ts";
import { gbLegislation } from "./index.ts";
import { GB_ACT_QUEUE } from "./route.ts";

const e2e = serviceTest([gbLegislation], { WORKER_POLL_MS: "20" });
const { balanceOf, fundedBuyer } = e2e;

describe("/v1/gov/gb/legislation paid end to end", () => {
  it("the free sample answers offline", async () => {
    const response = await fetch(`${e2e.service.url}/v1/gov/gb/legislation?q=data+protection&sample=1`);
    assert.equal(response.status, 200);
    const body = e2e.answer("/v1/gov/gb/legislation", await response.json());
    assert.equal(body.items?.[0]?.title, "Data Protection Act 2018");
  });

  it("a search is paid once and answered", async () => {
    const buyer = await fundedBuyer();
    const response = await payingFetch(buyer)(`${e2e.service.url}/v1/gov/gb/legislation?q=data%20protection`);
    assert.equal(response.status, 200);
    assert.equal(e2e.answer("/v1/gov/gb/legislation", await response.json()).count, 2);
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("an uncached id: 402, then 404 not_cached not charged, fetched by the job, then 200 charged", async () => {
    const unpaid = await fetch(`${e2e.service.url}/v1/gov/gb/legislation?id=ukpga/1998/29`);
    assert.equal(unpaid.status, 402);
    const buyer = await fundedBuyer();
    const pay = payingFetch(buyer);
    const miss = await pay(`${e2e.service.url}/v1/gov/gb/legislation?id=ukpga/1998/29`);
    assert.equal(miss.status, 404);
    const missBody = (await miss.json()) as Record<string, unknown>;
    assert.deepEqual([missBody.error, missBody.charged, missBody.retryAfterSec], ["not_cached", false, 60]);
    assert.equal(await balanceOf(buyer.address), 1_000_000n);
    await e2e.waitForJob(GB_ACT_QUEUE, "ukpga/1998/29");
    const hit = await pay(`${e2e.service.url}/v1/gov/gb/legislation?id=ukpga/1998/29`);
    assert.equal(hit.status, 200);
    const body = e2e.answer("/v1/gov/gb/legislation", await hit.json());
    assert.deepEqual(
      [body.id, body.title, body.inForce],
      ["ukpga/1998/29", "Data Protection Act 1998", false],
    );
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("a malformed id is 400 naming id before payment", async () => {
    const response = await fetch(`${e2e.service.url}/v1/gov/gb/legislation?id=ukpga-2018-12`);
    assert.equal(response.status, 400);
    assert.equal(response.headers.get("payment-required"), null);
    assert.equal(((await response.json()) as { parameter: string }).parameter, "id");
  });
});
