// Over HTTP in a real service (UPSTREAMS=replay): the free sample answers offline, and bad input is a 400
// naming the parameter before any payment is asked.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { itRefusesBeforePayment, serviceTest } from "../harness.test-helper.ts";
import { plLegislation } from "./index.ts";

const PATH = "/v1/gov/pl/legislation";
const e2e = serviceTest([plLegislation]);

describe(`${PATH} over HTTP`, () => {
  it("the free sample answers offline, saying it is a recorded sample", async () => {
    const response = await fetch(`${e2e.service.url}${PATH}?q=ochronie+danych+osobowych&sample=1`);
    assert.equal(response.status, 200);
    const body = e2e.answer(PATH, await response.json());
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
    assert.deepEqual(
      body.items?.map((i) => i.id),
      ["DU/2018/1000", "DU/1997/883"],
    );
  });

  const cases: Array<[string, string]> = [
    ["", "q"],
    ["q=x&id=DU/2018/1000", "id"],
    ["id=2018%2F1000", "id"],
    [`q=${"x".repeat(201)}`, "q"],
    ["q=x&page=2", "page"],
  ];
  itRefusesBeforePayment(e2e, PATH, cases);
});
