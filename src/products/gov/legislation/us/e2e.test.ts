// End to end over HTTP: the US legislation route in a real service, paid through the local facilitator.
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
import { usLegislation } from "./index.ts";
import { parseUsAnswer, US_ACT_QUEUE } from "./route.ts";

let service: TestService;
const family = assembleGovFamily(
  "gov-legislation",
  [usLegislation],
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

describe("/v1/gov/us/legislation paid end to end", () => {
  it("the free sample answers offline", async () => {
    const response = await fetch(`${service.url}/v1/gov/us/legislation?q=electronic+records&sample=1`);
    assert.equal(response.status, 200);
    const body = parseUsAnswer(await response.json());
    assert.equal(body.items?.[0]?.citation, "21 CFR 11.1");
  });

  it("a search is paid once and answered", async () => {
    const buyer = await fundedBuyer();
    const response = await payingFetch(buyer)(`${service.url}/v1/gov/us/legislation?q=electronic%20records`);
    assert.equal(response.status, 200);
    assert.equal(parseUsAnswer(await response.json()).count, 2);
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("an uncached id: 402, then 404 not_cached not charged, fetched by the job, then 200 charged", async () => {
    const unpaid = await fetch(`${service.url}/v1/gov/us/legislation?id=21/11/11.1`);
    assert.equal(unpaid.status, 402);
    const buyer = await fundedBuyer();
    const pay = payingFetch(buyer);
    const miss = await pay(`${service.url}/v1/gov/us/legislation?id=21/11/11.1`);
    assert.equal(miss.status, 404);
    const missBody = (await miss.json()) as Record<string, unknown>;
    assert.deepEqual([missBody.error, missBody.charged, missBody.retryAfterSec], ["not_cached", false, 60]);
    assert.equal(await balanceOf(buyer.address), 1_000_000n);
    for (let i = 0; i < 200; i++) {
      if ((await service.store.jobs.get(US_ACT_QUEUE, "21/11/11.1"))?.state === "done") break;
      await sleep(25);
    }
    const hit = await pay(`${service.url}/v1/gov/us/legislation?id=21%20CFR%2011.1`);
    assert.equal(hit.status, 200);
    const body = parseUsAnswer(await hit.json());
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
  for (const [query, parameter] of cases) {
    it(`?${query.slice(0, 40)} → 400 naming ${parameter}, before payment`, async () => {
      const response = await fetch(`${service.url}/v1/gov/us/legislation?${query}`);
      assert.equal(response.status, 400);
      assert.equal(response.headers.get("payment-required"), null);
      assert.equal(((await response.json()) as { parameter: string }).parameter, parameter);
    });
  }
});
