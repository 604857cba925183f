import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runWarmerRecorded } from "../../../../../test/family-harness.ts";
import { assertOutcome, routeTest } from "../harness.test-helper.ts";
import { gbLegislation } from "./index.ts";
import { GB_ACT_QUEUE } from "./route.ts";

const harness = routeTest("gov-legislation-gb", [gbLegislation]);
const { call } = harness;
const runJob = (id: string) => harness.runJob(GB_ACT_QUEUE, { id });

describe("/v1/gov/gb/legislation", () => {
  it("a title search answers the hits with OGL v3 and the recorded-sample notice", async () => {
    const outcome = await call({ q: "  Data   Protection " });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.deepEqual([body.query, body.count, body.totalCount, body.match], ["Data Protection", 2, 2, true]);
    assert.equal(body.items?.[0]?.id, "ukpga/2018/12");
    assert.equal(body.licence.name, "Open Government Licence v3.0");
    assert.match(body.licence.attribution ?? "", /© Crown and database right/);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
    assert.equal(
      body.source,
      "https://www.legislation.gov.uk/search/data.feed?title=data+protection&results-count=100",
    );
  });

  it("a real feed: totalCount is all matches (896), hits ranked by title match", async () => {
    const body = harness.answer((await call({ q: "construction" })).body);
    assert.deepEqual([body.count, body.totalCount], [20, 896]);
    const ids = (body.items ?? []).map((i) => i.id);
    // The feed's first entry (modified last) has a title without the word: ranked last; among the others,
    // all naming "construction", the shortest title comes first.
    assert.deepEqual([ids[0], ids.at(-1)], ["eur/2017/306", "eudn/2020/1574"]);
  });

  it("a regnal-year id is accepted and queued under legislation.gov.uk's spelling", async () => {
    const miss = await call({ id: "ukpga/geo5/4-5/1" });
    assertOutcome(miss, { status: 404, error: "not_cached", charged: false });
    assert.equal((await harness.ctx.store.jobs.get(GB_ACT_QUEUE, "ukpga/Geo5/4-5/1"))?.state, "queued");
  });

  it("an id naming several acts (upstream 300) answers 409 ambiguous_id with the choices, not charged", async () => {
    await runJob("ukpga/1914/1");
    const outcome = await call({ id: "ukpga/1914/1" });
    assertOutcome(outcome, { status: 409, error: "ambiguous_id", parameter: "id", charged: false });
    assert.deepEqual((outcome.body as { choices: unknown }).choices, [
      { id: "ukpga/Geo5/4-5/1", title: "Consolidated Fund (No. 1) Act 1914" },
      { id: "ukpga/Geo5/5-6/1", title: "Anglo-Portuguese Commercial Treaty Act 1914" },
    ]);
  });

  it("no hits is 200 match:false; a maintenance page served with 200 is 503 not charged", async () => {
    const none = await call({ q: "qqxyzzy" });
    assertOutcome(none, { status: 200, match: false, count: 0 });
    const failed = await call({ q: "maintenance" });
    assertOutcome(failed, { status: 503, charged: false });
  });

  it("an act not cached is queued (404 not_cached), fetched by the job, then served", async () => {
    const miss = await call({ id: "https://www.legislation.gov.uk/ukpga/2018/12" });
    assertOutcome(miss, { status: 404, error: "not_cached", retryAfterSec: 60 });
    assert.equal((await harness.ctx.store.jobs.get(GB_ACT_QUEUE, "ukpga/2018/12"))?.state, "queued");
    await runJob("ukpga/2018/12");
    const hit = await call({ id: "ukpga/2018/12" });
    assert.equal(hit.status, 200);
    const body = harness.answer(hit.body);
    assert.deepEqual(
      [body.found, body.id, body.citation, body.inForce, body.extent, body.year],
      [true, "ukpga/2018/12", "2018 c. 12", null, "E+W+S+N.I.", 2018],
    );
    assert.equal(body.apiUrl, "https://www.legislation.gov.uk/ukpga/2018/12/contents/data.xml");
    assert.equal(body.source, body.apiUrl);
  });

  it("a repealed act is inForce false; an unknown act is 404 not_found, not charged", async () => {
    await runJob("ukpga/1998/29");
    const repealed = harness.answer((await call({ id: "ukpga/1998/29" })).body);
    assert.deepEqual([repealed.inForce, repealed.dates?.repealed], [false, "2018-05-25"]);
    await runJob("ukpga/2018/9999");
    const unknown = await call({ id: "ukpga/2018/9999" });
    assertOutcome(unknown, { status: 404, error: "not_found", charged: false });
  });

  it("the new-items warmer queues the new acts", async () => {
    const counts = await runWarmerRecorded(harness.ctx.family.warmers?.[0] as never, harness.ctx);
    assert.equal(counts.entries, 2);
    assert.equal((await harness.ctx.store.jobs.get(GB_ACT_QUEUE, "asp/2024/99"))?.state, "queued");
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "ukpga/2018/12", q: "x" }, "id"],
      [{ id: "2018 c. 12" }, "id"],
      [{ q: "a".repeat(201) }, "q"],
    ] as const) {
      const outcome = await call(params);
      assertOutcome(outcome, { status: 400, parameter }, JSON.stringify(params));
    }
  });
});
