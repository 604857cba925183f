// Over HTTP in a real service (UPSTREAMS=replay): the free sample answers offline, and bad input is a 400
// naming the parameter before any payment is asked.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { itRefusesBeforePayment, serviceTest } from "../harness.test-helper.ts";
import { deLegislation } from "./index.ts";

const PATH = "/v1/gov/de/legislation";
const e2e = serviceTest([deLegislation], {}, (service) =>
  service.worker.runWarmer("gov.de.legislation.index"),
);

describe(`${PATH} over HTTP`, () => {
  it("the free sample answers offline, saying it is a recorded sample", async () => {
    const response = await fetch(`${e2e.service.url}${PATH}?q=Datenschutz&sample=1`);
    assert.equal(response.status, 200);
    const body = e2e.answer(PATH, await response.json());
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
    assert.deepEqual(
      body.items?.map((i) => i.normId),
      ["bdsg_2018"],
    );
  });

  const cases: Array<[string, string]> = [
    ["", "q"],
    ["q=x&id=bgb", "id"],
    ["id=%C2%A7%201%20BGB", "id"],
    [`q=${"x".repeat(201)}`, "q"],
    ["q=x&page=2", "page"],
  ];
  itRefusesBeforePayment(e2e, PATH, cases);
});
