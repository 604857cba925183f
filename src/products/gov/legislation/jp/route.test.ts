import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertOutcome, routeTest } from "../harness.test-helper.ts";
import { jpLegislation } from "./index.ts";
import { JP_ACT_QUEUE } from "./route.ts";

const harness = routeTest("gov-legislation-jp", [jpLegislation]);
const { call } = harness;
const runJob = (id: string) => harness.runJob(JP_ACT_QUEUE, { id });

describe("/v1/gov/jp/legislation", () => {
  it("a Japanese title search answers the hits under PDL 1.0 with the e-Gov attribution", async () => {
    const outcome = await call({ q: " 民法 " });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.deepEqual([body.query, body.count, body.totalCount], ["民法", 2, 2]);
    assert.match(body.licence.name, /PDL 1\.0/);
    assert.match(body.licence.attribution ?? "", /出典：e-Gov法令検索/);
    assert.equal(
      body.source,
      "https://laws.e-gov.go.jp/api/2/laws?law_title=%E6%B0%91%E6%B3%95&limit=20&offset=0&response_format=json",
    );
  });

  it("no hits is 200 match:false; an upstream failure is 503 not charged", async () => {
    const none = await call({ q: "該当なし法" });
    assertOutcome(none, { status: 200, match: false });
    const failed = await call({ q: "障害" });
    assertOutcome(failed, { status: 503, charged: false });
  });

  it("a law asked by number is queued, fetched, and then served by number and by id", async () => {
    const miss = await call({ id: "明治二十九年法律第八十九号" });
    assertOutcome(miss, { status: 404, error: "not_cached", retryAfterSec: 60 });
    await runJob("明治二十九年法律第八十九号");
    for (const id of ["明治二十九年法律第八十九号", "129AC0000000089"]) {
      const body = harness.answer((await call({ id })).body);
      assert.deepEqual(
        [body.id, body.title, body.titleKana, body.category],
        ["129AC0000000089", "民法", "みんぽう", "民事"],
      );
    }
  });

  it("a repealed law is served with inForce false; an unknown law id is 404 not_found", async () => {
    await runJob("328AC0000000097");
    const repealed = harness.answer((await call({ id: "328AC0000000097" })).body);
    assert.deepEqual([repealed.inForce, repealed.revisionStatus], [false, "Repeal"]);
    await runJob("999AC0000000999");
    const unknown = await call({ id: "999AC0000000999" });
    assertOutcome(unknown, { status: 404, error: "not_found" });
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "129AC0000000089", q: "民法" }, "id"],
      [{ id: "民法" }, "id"],
      [{ q: "法".repeat(201) }, "q"],
    ] as const) {
      const outcome = await call(params);
      assertOutcome(outcome, { status: 400, parameter }, JSON.stringify(params));
    }
  });
});
