import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertOutcome, routeTest } from "../harness.test-helper.ts";
import { auLegislation } from "./index.ts";
import { AU_ACT_QUEUE } from "./route.ts";

const harness = routeTest("gov-legislation-au", [auLegislation]);
const { call } = harness;
const runJob = (id: string) => harness.runJob(AU_ACT_QUEUE, { id });

describe("/v1/gov/au/legislation", () => {
  it("a title search answers one explicit page with CC BY 4.0 and the sample notice", async () => {
    const outcome = await call({ q: "PRIVACY" });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.deepEqual([body.count, body.totalCount, body.match], [2, 2, true]);
    assert.deepEqual(
      body.items?.map((i) => [i.id, (i as { principal?: boolean }).principal]),
      [
        ["C2004A03712", true],
        ["C2012A00197", false],
      ],
    );
    assert.equal(body.licence.name, "Creative Commons Attribution 4.0 International (CC BY 4.0)");
    assert.match(body.licence.attribution ?? "", /© Commonwealth of Australia/);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
    // The page asked for carries its filter and an explicit $skip (nextLink is never followed).
    const source = new URL(body.source);
    assert.equal(source.searchParams.get("$filter"), "contains(tolower(name),'privacy')");
    assert.deepEqual([source.searchParams.get("$top"), source.searchParams.get("$skip")], ["20", "0"]);
  });

  it("no hits is 200 match:false; a maintenance page served with 200 is 503 not charged", async () => {
    const none = await call({ q: "qqxyzzy" });
    assertOutcome(none, { status: 200, match: false });
    const failed = await call({ q: "maintenance" });
    assertOutcome(failed, { status: 503, charged: false });
  });

  it("a title not cached is queued, fetched by the job, then served with principal", async () => {
    const miss = await call({ id: "c2004a03712" });
    assertOutcome(miss, { status: 404, error: "not_cached", retryAfterSec: 60 });
    await runJob("C2004A03712");
    const body = harness.answer((await call({ id: "C2004A03712" })).body);
    assert.deepEqual(
      [body.found, body.title, body.inForce, body.principal],
      [true, "Privacy Act 1988", true, true],
    );
    assert.equal(body.apiUrl, "https://api.prod.legislation.gov.au/v1/Titles('C2004A03712')");
  });

  it("a repealed instrument is inForce false; an unknown id is 404 not_found, not charged", async () => {
    await runJob("F2019L01091");
    const repealed = harness.answer((await call({ id: "F2019L01091" })).body);
    assert.deepEqual(
      [repealed.inForce, repealed.principal, repealed.dates?.repealed],
      [false, false, "2019-11-15"],
    );
    await runJob("C2099A99999");
    const unknown = await call({ id: "C2099A99999" });
    assertOutcome(unknown, { status: 404, error: "not_found", charged: false });
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "C2004A03712", q: "x" }, "id"],
      [{ id: "Privacy Act" }, "id"],
      [{ q: "x".repeat(201) }, "q"],
    ] as const) {
      const outcome = await call(params);
      assertOutcome(outcome, { status: 400, parameter }, JSON.stringify(params));
    }
  });
});
