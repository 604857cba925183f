import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { routeTest } from "../harness.test-helper.ts";
import { usLegislation } from "./index.ts";
import { US_ACT_QUEUE } from "./route.ts";

const harness = routeTest("gov-legislation-us", [usLegislation]);
const { call } = harness;
const runJob = (id: string) => harness.runJob(US_ACT_QUEUE, { id });

describe("/v1/gov/us/legislation", () => {
  it("a search answers hits with the eCFR notice and the recorded-sample notice", async () => {
    const outcome = await call({ q: "electronic  records" });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.deepEqual(
      [body.query, body.count, body.totalCount, body.match],
      ["electronic records", 2, 2, true],
    );
    assert.match(body.licence.notice ?? "", /RECORDED SAMPLE.*not an official legal edition/s);
    assert.equal(
      body.source,
      "https://www.ecfr.gov/api/search/v1/results?query=electronic+records&per_page=20&page=1",
    );
  });

  it("no hits is 200 match:false with a message", async () => {
    const outcome = await call({ q: "qqxyzzy" });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.deepEqual([body.match, body.count], [false, 0]);
    assert.match(body.message ?? "", /No act of United States/);
  });

  it("an upstream failure is a 503 that charges nothing", async () => {
    const outcome = await call({ q: "outage" });
    assert.equal(outcome.status, 503);
    assert.equal((outcome.body as { charged: boolean }).charged, false);
  });

  it("an id not cached is 404 not_cached and queued; the job fetches it; then it is served", async () => {
    const miss = await call({ id: "21 CFR 11.1" });
    assert.equal(miss.status, 404);
    assert.deepEqual([(miss.body as { error: string }).error, miss.body.retryAfterSec], ["not_cached", 60]);
    assert.equal((await harness.ctx.store.jobs.get(US_ACT_QUEUE, "21/11/11.1"))?.state, "queued");
    await runJob("21/11/11.1");
    const hit = await call({ id: "21/11/11.1" });
    assert.equal(hit.status, 200);
    const body = harness.answer(hit.body);
    assert.deepEqual(
      [body.found, body.id, body.citation, body.inForce, body.agency],
      [
        true,
        "21/11/11.1",
        "21 CFR 11.1",
        true,
        "Food and Drug Administration, Department of Health and Human Services",
      ],
    );
    assert.equal(
      body.apiUrl,
      "https://www.ecfr.gov/api/versioner/v1/ancestry/2026-11-20/title-21.json?part=11&section=11.1",
    );
  });

  it("a removed section is served with inForce false", async () => {
    await runJob("21/11/11.2");
    const body = harness.answer((await call({ id: "21/11/11.2" })).body);
    assert.deepEqual([body.inForce, body.status], [false, "removed"]);
  });

  it("an id eCFR does not know is 404 not_found, not charged, after the job asked", async () => {
    await runJob("21/11/11.999");
    const outcome = await call({ id: "21/11/11.999" });
    assert.equal(outcome.status, 404);
    assert.deepEqual(
      [(outcome.body as { error: string }).error, (outcome.body as { charged: boolean }).charged],
      ["not_found", false],
    );
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "21/11/11.1", q: "x" }, "id"],
      [{ id: "21-11" }, "id"],
      [{ q: "x".repeat(201) }, "q"],
    ] as const) {
      const outcome = await call(params);
      assert.equal(outcome.status, 400);
      assert.equal((outcome.body as { parameter: string }).parameter, parameter, JSON.stringify(params));
    }
  });
});
