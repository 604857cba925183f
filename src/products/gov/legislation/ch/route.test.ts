import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runWarmerRecorded } from "../../../../../test/family-harness.ts";
import type { Warmer } from "../../../../catalog/product.ts";
import { assertOutcome, routeTest } from "../harness.test-helper.ts";
import { chLegislation } from "./index.ts";
import { CH_ACT_QUEUE, CH_INDEX_QUEUE } from "./route.ts";

const harness = routeTest("gov-legislation-ch", [chLegislation]);
const { call } = harness;
const runJob = (id: string) => harness.runJob(CH_ACT_QUEUE, { id });
const ids = (outcome: { body: unknown }) => harness.answer(outcome.body).items?.map((i) => i.id);

describe("/v1/gov/ch/legislation", () => {
  it("before the index is loaded a search is 404 not_cached and queues the load", async () => {
    const outcome = await call({ q: "Datenschutz" });
    assertOutcome(outcome, { status: 404, error: "not_cached", charged: false });
    assert.equal((await harness.ctx.store.jobs.get(CH_INDEX_QUEUE, "index"))?.state, "queued");
  });

  it("the warmer loads the index; searches fold umlauts and case, find compounds, aliases and SR numbers", async () => {
    const counts = await runWarmerRecorded(harness.ctx.family.warmers?.[0] as Warmer, harness.ctx);
    assert.deepEqual(counts, { pages: 1, acts: 5, upstreamCount: 5, indexed: 5 });
    const dsg = await call({ q: "DATENSCHUTZ" });
    assert.equal(dsg.status, 200);
    const body = harness.answer(dsg.body);
    assert.deepEqual(
      body.items?.map((i) => i.id),
      ["eli/cc/2022/491"],
    );
    assert.match(body.licence.name, /Art\. 5 URG/);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE.*Federal Chancellery/);
    assert.deepEqual(ids(await call({ q: "gewasserschutz" })), ["eli/cc/1992/1860_1860_1860"]);
    assert.deepEqual(ids(await call({ q: "Gewässerschutzgesetz".normalize("NFD") })), [
      "eli/cc/1992/1860_1860_1860",
    ]);
    assert.deepEqual(ids(await call({ q: "code civil" })), ["eli/cc/24/233_245_233"]);
    assert.deepEqual(ids(await call({ q: "LPD" })), ["eli/cc/2022/491"]);
    assert.deepEqual(ids(await call({ q: "Energiegesetz" }))?.sort(), ["eli/cc/1999/27", "eli/cc/2017/762"]);
    const none = await call({ q: "qqxyzzy" });
    assertOutcome(none, { status: 200, match: false });
  });

  it("an SR number not cached is queued, read by SPARQL, then served as the act in force", async () => {
    const miss = await call({ id: "SR 730.0" });
    assertOutcome(miss, { status: 404, error: "not_cached", retryAfterSec: 60 });
    await runJob("730.0");
    const body = harness.answer((await call({ id: "730.0" })).body);
    assert.deepEqual(
      [body.found, body.id, body.srNumber, body.inForce, body.shortTitle],
      [true, "eli/cc/2017/762", "730.0", true, "EnG"],
    );
    assert.match(body.apiUrl ?? "", /^https:\/\/fedlex\.data\.admin\.ch\/sparqlendpoint\?query=/);
  });

  it("an act by ELI; a repealed act; an invented ELI is 404 not_found; a maintenance page fails the job", async () => {
    await runJob("eli/cc/2022/491");
    const dsg = harness.answer((await call({ id: "https://www.fedlex.admin.ch/eli/cc/2022/491/de" })).body);
    assert.deepEqual([dsg.title, dsg.aliases?.length], ["Bundesgesetz über den Datenschutz", 3]);
    await runJob("eli/cc/1999/27");
    const old = harness.answer((await call({ id: "eli/cc/1999/27" })).body);
    assert.deepEqual([old.inForce, old.dates?.repealed], [false, "2017-12-31"]);
    await runJob("eli/cc/2099/1");
    const invented = await call({ id: "eli/cc/2099/1" });
    assertOutcome(invented, { status: 404, error: "not_found", charged: false });
    await assert.rejects(runJob("eli/cc/2000/1"), /maintenance/);
    assert.equal((await call({ id: "eli/cc/2000/1" })).status, 404);
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "235.1", q: "x" }, "id"],
      [{ id: "DSG" }, "id"],
      [{ q: "ü".repeat(201) }, "q"],
    ] as const) {
      const outcome = await call(params);
      assertOutcome(outcome, { status: 400, parameter }, JSON.stringify(params));
    }
  });
});
