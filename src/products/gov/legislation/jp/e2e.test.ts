// Over HTTP in a real service (UPSTREAMS=replay): the free sample answers offline, and bad input is a 400
// naming the parameter before any payment is asked.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestService } from "../../../../../test/harness.ts";
import { loadConfig } from "../../../../config.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { LEGISLATION_RECORDINGS_DIR } from "../index.ts";
import { jpLegislation } from "./index.ts";
import { parseJpAnswer } from "./route.ts";

const PATH = "/v1/gov/jp/legislation";
let service: TestService;

before(async () => {
  const family = assembleGovFamily(
    "gov-legislation",
    [jpLegislation],
    LEGISLATION_RECORDINGS_DIR,
    GOV_MIGRATIONS,
  );
  service = await startTestService({}, [family(loadConfig({ UPSTREAMS: "replay" }))]);
});
after(() => service.stop());

describe(`${PATH} over HTTP`, () => {
  it("the free sample answers offline, saying it is a recorded sample", async () => {
    const response = await fetch(`${service.url}${PATH}?q=%E6%B0%91%E6%B3%95&sample=1`);
    assert.equal(response.status, 200);
    const body = parseJpAnswer(await response.json());
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
  for (const [query, parameter] of cases) {
    it(`?${query.slice(0, 40)} → 400 naming ${parameter}, before payment`, async () => {
      const response = await fetch(`${service.url}${PATH}?${query}`);
      assert.equal(response.status, 400);
      assert.equal(response.headers.get("payment-required"), null);
      const body = (await response.json()) as { parameter: string; charged: boolean };
      assert.deepEqual([body.parameter, body.charged], [parameter, false]);
    });
  }
});
