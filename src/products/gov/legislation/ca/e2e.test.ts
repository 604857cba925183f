// Over HTTP in a real service (UPSTREAMS=replay): the index warmer queues the sample act, the worker fetches
// it, and the free sample then answers offline; bad input is a 400 naming the parameter before payment.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { itRefusesBeforePayment, serviceTest } from "../harness.test-helper.ts";
import { caLegislation } from "./index.ts";
import { CA_ACT_QUEUE, CA_INDEX_WARMER } from "./warmer.ts";

const PATH = "/v1/gov/ca/legislation";
const e2e = serviceTest([caLegislation], { WORKER_POLL_MS: "20" }, async (service) => {
  await service.worker.runWarmer(CA_INDEX_WARMER);
  await e2e.waitForJob(CA_ACT_QUEUE, "C-46");
});

describe(`${PATH} over HTTP`, () => {
  it("the free sample (code=C-46) answers offline, saying it is a recorded sample", async () => {
    const response = await fetch(`${e2e.service.url}${PATH}?code=C-46&sample=1`);
    assert.equal(response.status, 200);
    const body = e2e.answer(PATH, await response.json());
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
  itRefusesBeforePayment(e2e, PATH, cases);
});
