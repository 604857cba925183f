import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  openFamilyContext,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../../../test/family-harness.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { assertOutcome, routeTest } from "../harness.test-helper.ts";
import { caLegislation } from "./index.ts";
import { CA_ACT_QUEUE, CA_INDEX, caIndexWarmer } from "./warmer.ts";

const harness = routeTest("gov-legislation-ca", [caLegislation]);
const { call } = harness;
const runJob = (id: string) => harness.runJob(CA_ACT_QUEUE, { code: id });

describe("/v1/gov/ca/legislation", () => {
  it("before the index: an unknown code is queued, and Justice Laws' 404 makes it not_found", async () => {
    const miss = await call({ code: "Z-99" });
    assertOutcome(miss, { status: 404, error: "not_cached" });
    await runJob("Z-99");
    const unknown = await call({ code: "Z-99" });
    assertOutcome(unknown, { status: 404, error: "not_found", charged: false });
  });

  it("the index warmer builds leg-ca and queues the sample act", async () => {
    const counts = await runWarmerRecorded(caIndexWarmer, harness.ctx);
    assert.deepEqual(counts, { records: 8, indexed: 4 });
    assert.equal((await harness.ctx.store.jobs.get(CA_ACT_QUEUE, "C-46"))?.state, "queued");
  });

  it("a code absent from Legis.xml is 404 not_found at once, nothing queued", async () => {
    const outcome = await call({ code: "Q-7" });
    assertOutcome(outcome, { status: 404, error: "not_found" });
    assert.equal(await harness.ctx.store.jobs.get(CA_ACT_QUEUE, "Q-7"), undefined);
  });

  it("an act fetched by the job answers every Canadian field, with sections only when text=1", async () => {
    await runJob("C-46");
    const outcome = await call({ code: "c-46" });
    assert.equal(outcome.status, 200);
    const body = harness.answer(outcome.body);
    assert.deepEqual(
      [body.id, body.code, body.consolidatedNumber, body.titleEn, body.titleFr, body.longTitleEn],
      ["C-46", "C-46", "C-46", "Criminal Code", "Code criminel", "An Act respecting the Criminal Law"],
    );
    assert.deepEqual(
      [body.lastAmended, body.pitDate, body.currentToDate, body.lang, body.timezone, body.inForce],
      ["2026-10-30", "2026-10-30", "2026-11-06", "en", "America/Toronto", true],
    );
    assert.equal(body.xmlUrl, "https://laws-lois.justice.gc.ca/eng/XML/C-46.xml");
    assert.ok(body.scrapedAt);
    assert.equal(body.sections, undefined);
    assert.match(body.licence.name, /SI\/97-5/);
    assert.match(body.licence.notice ?? "", /not an official version/);
    const withText = harness.answer((await call({ code: "C-46", text: "1" })).body);
    assert.equal(withText.sections?.[1]?.marginalNote, "Definitions");
  });

  it("a repealed act is served with inForce false", async () => {
    await runJob("Y-1");
    const body = harness.answer((await call({ code: "Y-1" })).body);
    assert.deepEqual([body.inForce, body.titleFr], [false, "Loi sur les jeunes contrevenants"]);
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "code"],
      [{ code: "Criminal Code" }, "code"],
      [{ code: "C-46", text: "yes" }, "text"],
    ] as const) {
      const outcome = await call(params);
      assertOutcome(outcome, { status: 400, parameter }, JSON.stringify(params));
    }
  });
});

describe("Justice Laws failing", () => {
  it("a Legis.xml maintenance page keeps the index; an act fetch failing with 503 fails the job, nothing stored", async () => {
    let status = 200;
    let answer = "<html><body>Maintenance</body></html>";
    const upstream = await startLoopbackUpstream(() => ({
      status,
      headers: { "content-type": "text/html" },
      body: answer,
    }));
    const live = await openFamilyContext(harness.family, {
      UPSTREAMS: "live",
      GOV_CA_JUSTICE_LAWS_BASE_URL: upstream.baseUrl,
    });
    try {
      await assert.rejects(runWarmerRecorded(caIndexWarmer, live), /ActsRegsList/);
      assert.equal(await GovTitleIndex.of(live.store).liveGeneration(CA_INDEX), undefined);
      status = 503;
      answer = "Service Unavailable";
      await assert.rejects(
        live.family.jobs?.[CA_ACT_QUEUE]?.({ code: "C-46" }, live) ?? Promise.resolve(),
        /HTTP 503/,
      );
      assert.equal(await live.store.cache.get("gov-leg-ca", "C-46"), undefined);
    } finally {
      await live.close();
      await upstream.close();
    }
  });
});
