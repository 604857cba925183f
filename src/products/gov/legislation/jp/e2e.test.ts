// Over HTTP in a real service (UPSTREAMS=replay): the free sample answers offline, and bad input is a 400
// naming the parameter before any payment is asked.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { itRefusesBeforePayment, serviceTest } from "../harness.test-helper.ts";
import { jpLegislation } from "./index.ts";

const PATH = "/v1/gov/jp/legislation";
const e2e = serviceTest([jpLegislation]);

describe(`${PATH} over HTTP`, () => {
  it("the free sample answers offline, saying it is a recorded sample", async () => {
    const response = await fetch(`${e2e.service.url}${PATH}?q=%E6%B0%91%E6%B3%95&sample=1`);
    assert.equal(response.status, 200);
    const body = e2e.answer(PATH, await response.json());
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
    assert.deepEqual(
      body.items?.map((i) => i.title),
      ["民法", "民法施行法"],
    );
  });

  const cases: Array<[string, string]> = [
    ["", "q"],
    ["q=x&id=129AC0000000089", "id"],
    ["id=%E6%B0%91%E6%B3%95", "id"],
    [`q=${"x".repeat(201)}`, "q"],
    ["q=x&page=2", "page"],
  ];
  itRefusesBeforePayment(e2e, PATH, cases);
});
