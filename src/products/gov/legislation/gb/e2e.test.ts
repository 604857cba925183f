// End to end over HTTP: the UK legislation route in a real service, paid through the local facilitator.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../../../test/harness.ts";
import { loadConfig } from "../../../../config.ts";
import { creditWallet } from "../../../../x402/local-facilitator/facilitator.ts";
import { NETWORKS } from "../../../../x402/networks.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { LEGISLATION_RECORDINGS_DIR } from "../index.ts";
import { gbLegislation } from "./index.ts";
import { GB_ACT_QUEUE, parseGbAnswer } from "./route.ts";

let service: TestService;
const family = assembleGovFamily(
  "gov-legislation",
  [gbLegislation],
  LEGISLATION_RECORDINGS_DIR,
  GOV_MIGRATIONS,
);

before(async () => {
  const env = { WORKER_POLL_MS: "20" };
  service = await startTestService(env, [family(loadConfig({ UPSTREAMS: "replay", ...env }))]);
});
after(() => service.stop());

const balanceOf = (address: string) => service.store.localUsdc.balance(NETWORKS.base.caip2, address);

async function fundedBuyer() {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  return buyer;
}

describe("/v1/gov/gb/legislation paid end to end", () => {
  it("the free sample answers offline", async () => {
    const response = await fetch(`${service.url}/v1/gov/gb/legislation?q=data+protection&sample=1`);
    assert.equal(response.status, 200);
    const body = parseGbAnswer(await response.json());
    assert.equal(body.items?.[0]?.title, "Data Protection Act 2018");
  });

  it("a search is paid once and answered", async () => {
    const buyer = await fundedBuyer();
    const response = await payingFetch(buyer)(`${service.url}/v1/gov/gb/legislation?q=data%20protection`);
    assert.equal(response.status, 200);
    assert.equal(parseGbAnswer(await response.json()).count, 2);
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("an uncached id: 402, then 404 not_cached not charged, fetched by the job, then 200 charged", async () => {
    const unpaid = await fetch(`${service.url}/v1/gov/gb/legislation?id=ukpga/1998/29`);
    assert.equal(unpaid.status, 402);
    const buyer = await fundedBuyer();
    const pay = payingFetch(buyer);
    const miss = await pay(`${service.url}/v1/gov/gb/legislation?id=ukpga/1998/29`);
    assert.equal(miss.status, 404);
    const missBody = (await miss.json()) as Record<string, unknown>;
    assert.deepEqual([missBody.error, missBody.charged, missBody.retryAfterSec], ["not_cached", false, 60]);
    assert.equal(await balanceOf(buyer.address), 1_000_000n);
    for (let i = 0; i < 200; i++) {
      if ((await service.store.jobs.get(GB_ACT_QUEUE, "ukpga/1998/29"))?.state === "done") break;
      await sleep(25);
    }
    const hit = await pay(`${service.url}/v1/gov/gb/legislation?id=ukpga/1998/29`);
    assert.equal(hit.status, 200);
    const body = parseGbAnswer(await hit.json());
    assert.deepEqual(
      [body.id, body.title, body.inForce],
      ["ukpga/1998/29", "Data Protection Act 1998", false],
    );
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("a malformed id is 400 naming id before payment", async () => {
    const response = await fetch(`${service.url}/v1/gov/gb/legislation?id=ukpga-2018-12`);
    assert.equal(response.status, 400);
    assert.equal(response.headers.get("payment-required"), null);
    assert.equal(((await response.json()) as { parameter: string }).parameter, "id");
  });
});
