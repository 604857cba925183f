import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runWarmerRecorded } from "../../../../../test/family-harness.ts";
import type { Warmer } from "../../../../catalog/product.ts";
import { assertOutcome, routeTest } from "../harness.test-helper.ts";
import { euLegislation } from "./index.ts";
import { EU_ACT_QUEUE, EU_INDEX_QUEUE } from "./route.ts";

const harness = routeTest("gov-legislation-eu", [euLegislation]);
const { call } = harness;
const runJob = (id: string) => harness.runJob(EU_ACT_QUEUE, { id });

describe("/v1/gov/eu/eurlex", () => {
  it("before the index is built a search is 404 not_cached and queues the build", async () => {
    const outcome = await call({ q: "personal data" });
    assertOutcome(outcome, { status: 404, error: "not_cached", charged: false });
    assert.equal((await harness.ctx.store.jobs.get(EU_INDEX_QUEUE, "index"))?.state, "queued");
  });

  it("the warmer builds the index; a title search answers with the EUR-Lex notice", async () => {
    const counts = await runWarmerRecorded(harness.ctx.family.warmers?.[0] as Warmer, harness.ctx);
    assert.deepEqual(counts, { pages: 1, acts: 4, upstreamCount: 4, indexed: 4 });
    const outcome = await call({ q: "Protection of Personal DATA" });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.deepEqual(body.items?.map((i) => i.id).sort(), ["31995L0046", "32016R0679"]);
    assert.equal(body.totalCount, 2);
    assert.match(body.licence.name, /2011\/833\/EU/);
    assert.match(body.licence.attribution ?? "", /© European Union/);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE.*authentic/);
  });

  it("diacritics are folded both ways, and the act number finds the act", async () => {
    const plain = harness.answer((await call({ q: "cote d ivoire" })).body);
    assert.deepEqual(
      plain.items?.map((i) => i.id),
      ["32021D1234"],
    );
    const accented = harness.answer((await call({ q: "CÔTE" })).body);
    assert.deepEqual(
      accented.items?.map((i) => i.id),
      ["32021D1234"],
    );
    const byNumber = harness.answer((await call({ q: "2016/679" })).body);
    assert.equal(byNumber.items?.[0]?.id, "32016R0679");
    const none = await call({ q: "qqxyzzy" });
    assertOutcome(none, { status: 200, match: false });
  });

  it("an act not cached is queued, fetched by the job, then served with its Cellar URI", async () => {
    const miss = await call({ id: "CELEX:32016R0679" });
    assertOutcome(miss, { status: 404, error: "not_cached", retryAfterSec: 60 });
    await runJob("32016R0679");
    const body = harness.answer((await call({ id: "32016R0679" })).body);
    assert.deepEqual(
      [body.found, body.id, body.inForce, body.cellarUri],
      [
        true,
        "32016R0679",
        true,
        "http://publications.europa.eu/resource/cellar/3e485e15-11bd-11e6-ba9a-01aa75ed71a1",
      ],
    );
    assert.match(body.apiUrl ?? "", /^https:\/\/publications\.europa\.eu\/webapi\/rdf\/sparql\?query=/);
  });

  it("a repealed act, an unknown CELEX (404 not_found) and a maintenance page (job fails, still not cached)", async () => {
    await runJob("31995L0046");
    const repealed = harness.answer((await call({ id: "31995L0046" })).body);
    assert.deepEqual([repealed.inForce, repealed.dates?.endOfValidity], [false, "2018-05-24"]);
    await runJob("32099R9999");
    const unknown = await call({ id: "32099R9999" });
    assertOutcome(unknown, { status: 404, error: "not_found" });
    await assert.rejects(runJob("32000R0001"), /maintenance/);
    const failed = await call({ id: "32000R0001" });
    assertOutcome(failed, { status: 404, error: "not_cached" });
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "32016R0679", q: "x" }, "id"],
      [{ id: "2016/679" }, "id"],
      [{ q: "x".repeat(201) }, "q"],
      [{ q: "data", limit: "0" }, "limit"],
    ] as const) {
      const outcome = await call(params);
      assertOutcome(outcome, { status: 400, parameter }, JSON.stringify(params));
    }
  });
});
