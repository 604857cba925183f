import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertOutcome, routeTest } from "../harness.test-helper.ts";
import { plLegislation } from "./index.ts";
import { PL_ACT_QUEUE } from "./route.ts";

const harness = routeTest("gov-legislation-pl", [plLegislation]);
const { call } = harness;
const runJob = (id: string) => harness.runJob(PL_ACT_QUEUE, { id });

describe("/v1/gov/pl/legislation", () => {
  it("a title search answers the hits with the licence and the recorded-sample notice", async () => {
    const outcome = await call({ q: "ochronie danych osobowych" });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.deepEqual([body.count, body.totalCount, body.match], [2, 2, true]);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
    assert.match(body.licence.name, /not protected by copyright/);
  });

  it("a Polish title with diacritics, typed decomposed (NFD), is searched as NFC and found", async () => {
    const outcome = await call({ q: "Kodeks wykroczeń".normalize("NFD") });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.equal(body.query, "Kodeks wykroczeń");
    assert.deepEqual(
      body.items?.map((i) => i.id),
      ["DU/1971/114"],
    );
    assert.equal(
      body.source,
      "https://api.sejm.gov.pl/eli/acts/search?title=Kodeks+wykrocze%C5%84&limit=20&offset=0",
    );
  });

  it("no hits is 200 match:false; an upstream failure is 503 not charged", async () => {
    const none = await call({ q: "qqxyzzy" });
    assertOutcome(none, { status: 200, match: false });
    const failed = await call({ q: "awaria" });
    assertOutcome(failed, { status: 503, charged: false });
  });

  it("an act not cached is queued (404 not_cached), fetched by the job, then served with its keywords", async () => {
    const miss = await call({ id: "Dz.U. 2018 poz. 1000" });
    assertOutcome(miss, { status: 404, error: "not_cached", retryAfterSec: 60 });
    await runJob("DU/2018/1000");
    const hit = await call({ id: "DU/2018/1000" });
    assert.equal(hit.status, 200);
    const body = harness.answer(hit.body);
    assert.deepEqual([body.found, body.id, body.inForce, body.type], [true, "DU/2018/1000", true, "Ustawa"]);
    assert.ok(body.keywords?.includes("ochrona danych osobowych"));
    assert.equal(body.apiUrl, "https://api.sejm.gov.pl/eli/acts/DU/2018/1000");
  });

  it("a repealed act is served with inForce false; an unknown act is 404 not_found", async () => {
    await runJob("DU/1997/883");
    const repealed = harness.answer((await call({ id: "DU/1997/883" })).body);
    assert.deepEqual([repealed.inForce, repealed.dates?.repealed], [false, "2018-05-25"]);
    await runJob("DU/2018/99999");
    const unknown = await call({ id: "DU/2018/99999" });
    assertOutcome(unknown, { status: 404, error: "not_found", charged: false });
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "DU/2018/1000", q: "x" }, "id"],
      [{ id: "2018/1000" }, "id"],
      [{ q: "ż".repeat(201) }, "q"],
    ] as const) {
      const outcome = await call(params);
      assertOutcome(outcome, { status: 400, parameter }, JSON.stringify(params));
    }
  });
});
