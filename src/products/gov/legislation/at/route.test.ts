import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runWarmerRecorded } from "../../../../../test/family-harness.ts";
import type { Warmer } from "../../../../catalog/product.ts";
import { assertOutcome, routeTest } from "../harness.test-helper.ts";
import { atLegislation } from "./index.ts";
import { AT_ACT_QUEUE } from "./route.ts";

const harness = routeTest("gov-legislation-at", [atLegislation]);
const { call } = harness;
const runJob = (id: string) => harness.runJob(AT_ACT_QUEUE, { id });

describe("/v1/gov/at/legislation", () => {
  it("a title search answers acts (provisions grouped) with CC BY 4.0 and the sample notice", async () => {
    const outcome = await call({ q: "Mietrechtsgesetz" });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.deepEqual([body.count, body.totalCount, body.match], [2, null, true]);
    assert.equal(body.licence.name, "Creative Commons Attribution 4.0 International (CC BY 4.0)");
    assert.equal(body.licence.attribution, "Datenquelle: RIS – https://www.ris.bka.gv.at/");
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
    assert.match(body.source, /Titel=mietrechtsgesetz/);
  });

  it("an umlaut title typed decomposed and upper-case is searched as NFC and found; case variants share it", async () => {
    const outcome = await call({ q: "ÄRZTEGESETZ".normalize("NFD") });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.equal(body.query, "ÄRZTEGESETZ");
    assert.deepEqual(
      body.items?.map((i) => [i.id, (i as { abbreviation?: string }).abbreviation]),
      [["10011138", "ÄrzteG 1998"]],
    );
    const lower = harness.answer((await call({ q: "ärztegesetz" })).body);
    assert.equal(lower.items?.[0]?.id, "10011138");
    // Without the umlaut RIS is asked anew (it matches letters as written): no cached answer is borrowed.
    const plain = harness.answer((await call({ q: "Arztegesetz" })).body);
    assert.deepEqual([plain.match, plain.count], [false, 0]);
    assert.match(plain.source, /Titel=arztegesetz/);
  });

  it("no hits is 200 match:false; a maintenance page or a RIS error is 503 not charged", async () => {
    const none = await call({ q: "qqxyzzy" });
    assertOutcome(none, { status: 200, match: false });
    for (const q of ["wartung", "und (oder)"]) {
      const failed = await call({ q });
      assertOutcome(failed, { status: 503, charged: false }, q);
    }
  });

  it("an act not cached is queued, fetched by the job, then served with its extras", async () => {
    const miss = await call({ id: "10002531" });
    assertOutcome(miss, { status: 404, error: "not_cached", retryAfterSec: 60 });
    await runJob("10002531");
    const body = harness.answer((await call({ id: "10002531" })).body);
    assert.deepEqual(
      [body.found, body.id, body.inForce, body.shortTitle, body.abbreviation, body.publishedIn, body.type],
      [true, "10002531", true, "Mietrechtsgesetz", "MRG", "BGBl. Nr. 520/1981", "BG"],
    );
    assert.match(body.apiUrl ?? "", /Gesetzesnummer=10002531/);
  });

  it("a repealed act is inForce false with its repeal date; an unknown act is 404 not_found", async () => {
    await runJob("10009999");
    const repealed = harness.answer((await call({ id: "10009999" })).body);
    assert.deepEqual([repealed.inForce, repealed.dates?.repealed], [false, "2019-12-31"]);
    await runJob("99999999");
    const unknown = await call({ id: "99999999" });
    assertOutcome(unknown, { status: 404, error: "not_found", charged: false });
  });

  it("the change feed queues a refresh of the changed acts we hold, and only of those", async () => {
    await runJob("10002531");
    assert.equal((await harness.ctx.store.jobs.get(AT_ACT_QUEUE, "10011138"))?.state, undefined);
    const counts = await runWarmerRecorded(harness.ctx.family.warmers?.[0] as Warmer, harness.ctx);
    assert.deepEqual(counts, { changedProvisions: 2, changedActs: 2, refreshed: 1 });
    assert.equal((await harness.ctx.store.jobs.get(AT_ACT_QUEUE, "10002531"))?.state, "queued");
    assert.equal((await harness.ctx.store.jobs.get(AT_ACT_QUEUE, "10011138"))?.state, undefined);
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "10002531", q: "x" }, "id"],
      [{ id: "MRG" }, "id"],
      [{ q: "ä".repeat(201) }, "q"],
    ] as const) {
      const outcome = await call(params);
      assertOutcome(outcome, { status: 400, parameter }, JSON.stringify(params));
    }
  });
});
