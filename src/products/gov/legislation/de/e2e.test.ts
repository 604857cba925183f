// Over HTTP in a real service (UPSTREAMS=replay): the free sample answers offline, and bad input is a 400
// naming the parameter before any payment is asked.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestService } from "../../../../../test/harness.ts";
import { loadConfig } from "../../../../config.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { LEGISLATION_RECORDINGS_DIR } from "../index.ts";
import { deLegislation } from "./index.ts";
import { parseDeAnswer } from "./route.ts";

const PATH = "/v1/gov/de/legislation";
let service: TestService;

before(async () => {
  const family = assembleGovFamily(
    "gov-legislation",
    [deLegislation],
    LEGISLATION_RECORDINGS_DIR,
    GOV_MIGRATIONS,
  );
  service = await startTestService({}, [family(loadConfig({ UPSTREAMS: "replay" }))]);
  await service.worker.runWarmer("gov.de.legislation.index");
});
after(() => service.stop());

describe(`${PATH} over HTTP`, () => {
  it("the free sample answers offline, saying it is a recorded sample", async () => {
    const response = await fetch(`${service.url}${PATH}?q=Datenschutz&sample=1`);
    assert.equal(response.status, 200);
    const body = parseDeAnswer(await response.json());
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
