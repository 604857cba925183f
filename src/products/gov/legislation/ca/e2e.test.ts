// Over HTTP in a real service (UPSTREAMS=replay): the index warmer queues the sample act, the worker fetches
// it, and the free sample then answers offline; bad input is a 400 naming the parameter before payment.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestService, type TestService } from "../../../../../test/harness.ts";
import { loadConfig } from "../../../../config.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { LEGISLATION_RECORDINGS_DIR } from "../index.ts";
import { caLegislation } from "./index.ts";
import { parseCaAnswer } from "./route.ts";
import { CA_ACT_QUEUE, CA_INDEX_WARMER } from "./warmer.ts";

const PATH = "/v1/gov/ca/legislation";
let service: TestService;

before(async () => {
  const env = { WORKER_POLL_MS: "20" };
  const family = assembleGovFamily(
    "gov-legislation",
    [caLegislation],
    LEGISLATION_RECORDINGS_DIR,
    GOV_MIGRATIONS,
  );
  service = await startTestService(env, [family(loadConfig({ UPSTREAMS: "replay", ...env }))]);
  await service.worker.runWarmer(CA_INDEX_WARMER);
  for (let i = 0; i < 200; i++) {
    if ((await service.store.jobs.get(CA_ACT_QUEUE, "C-46"))?.state === "done") break;
    await sleep(25);
  }
});
after(() => service.stop());

describe(`${PATH} over HTTP`, () => {
  it("the free sample (code=C-46) answers offline, saying it is a recorded sample", async () => {
    const response = await fetch(`${service.url}${PATH}?code=C-46&sample=1`);
    assert.equal(response.status, 200);
    const body = parseCaAnswer(await response.json());
    assert.deepEqual([body.code, body.titleEn, body.titleFr], ["C-46", "Criminal Code", "Code criminel"]);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
  });

  const cases: Array<[string, string]> = [
    ["", "code"],
    ["code=Criminal%20Code", "code"],
    ["code=C-46&text=yes", "text"],
    ["q=criminal", "q"],
    ["id=C-46", "id"],
  ];
  for (const [query, parameter] of cases) {
    it(`?${query} → 400 naming ${parameter}, before payment`, async () => {
      const response = await fetch(`${service.url}${PATH}?${query}`);
      assert.equal(response.status, 400);
      assert.equal(response.headers.get("payment-required"), null);
      const body = (await response.json()) as { parameter: string; charged: boolean };
      assert.deepEqual([body.parameter, body.charged], [parameter, false]);
    });
  }
});
