import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  openFamilyContext,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../../../test/family-harness.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { assertOutcome, routeTest } from "../harness.test-helper.ts";
import { deLegislation } from "./index.ts";
import { DE_ACT_QUEUE } from "./job.ts";
import { DE_INDEX_QUEUE } from "./route.ts";
import { DE_INDEX, deIndexWarmer } from "./warmer.ts";

const harness = routeTest("gov-legislation-de", [deLegislation]);
const { call } = harness;

describe("/v1/gov/de/legislation", () => {
  it("before the index is built: 404 not_cached (not charged) and the build is queued", async () => {
    const outcome = await call({ q: "Datenschutz" });
    assertOutcome(outcome, { status: 404, error: "not_cached", retryAfterSec: 60 });
    assert.equal((await harness.ctx.store.jobs.get(DE_INDEX_QUEUE, "toc"))?.state, "queued");
  });

  it("the queued build fills the index", async () => {
    await harness.ctx.family.jobs?.[DE_INDEX_QUEUE]?.({}, harness.ctx);
    assert.equal(await GovTitleIndex.of(harness.ctx.store).count(DE_INDEX), 8);
  });

  it("searches fold umlauts and case and find words inside compounds", async () => {
    const inside = harness.answer((await call({ q: "datenschutz" })).body);
    assert.deepEqual(
      inside.items?.map((i) => [i.id, i.titleDe]),
      [["bdsg_2018", "Bundesdatenschutzgesetz"]],
    );
    const folded = harness.answer((await call({ q: "STRASSENVERKEHR" })).body);
    assert.deepEqual(
      folded.items?.map((i) => i.normId),
      ["stvg"],
    );
    const umlaut = harness.answer((await call({ q: "bürgerliches" })).body);
    assert.deepEqual(
      umlaut.items?.map((i) => i.sourceUrl),
      ["https://www.gesetze-im-internet.de/bgb/"],
    );
    assert.equal(umlaut.source, "https://www.gesetze-im-internet.de/gii-toc.xml");
    assert.match(umlaut.licence.name, /terms unclear/);
    assert.match(umlaut.licence.notice ?? "", /^RECORDED SAMPLE/);
  });

  it("a GII id is queued (404 not_cached), completed from NeuRIS by the job, then served", async () => {
    const miss = await call({ id: "BDSG_2018" });
    assertOutcome(miss, { status: 404, error: "not_cached", retryAfterSec: 60 });
    await harness.ctx.family.jobs?.[DE_ACT_QUEUE]?.({ id: "bdsg_2018" }, harness.ctx);
    const act = harness.answer((await call({ id: "bdsg_2018" })).body);
    assert.deepEqual(
      [act.found, act.id, act.title, act.abbreviation, act.eli, act.inForce],
      [true, "bdsg_2018", "Bundesdatenschutzgesetz", "BDSG", "eli/bund/bgbl-1/2017/s2097", true],
    );
    assert.deepEqual(act.dates, { adopted: "2017-06-30", published: "2017-07-05" });
    const search = harness.answer((await call({ q: "BDSG" })).body);
    assert.deepEqual(
      search.items?.map((i) => [i.id, i.abbreviation]),
      [["bdsg_2018", "BDSG"]],
    );
  });

  it("a law NeuRIS does not hold, or NeuRIS failing, leaves the GII facts (abbreviation null)", async () => {
    for (const id of ["estg", "gg"]) {
      await harness.ctx.family.jobs?.[DE_ACT_QUEUE]?.({ id }, harness.ctx);
      const act = harness.answer((await call({ id })).body);
      assert.deepEqual([act.id, act.abbreviation, act.eli, act.inForce], [id, null, null, true]);
    }
  });

  it("its slug is searchable too; limit bounds the hits", async () => {
    const bySlug = harness.answer((await call({ q: "ao 1977" })).body);
    assert.deepEqual(
      bySlug.items?.map((i) => i.id),
      ["ao_1977"],
    );
    const limited = harness.answer((await call({ q: "gesetz", limit: "2" })).body);
    assert.deepEqual([limited.count, limited.totalCount], [2, 7]);
  });

  it("a law not in the table of contents (unknown or repealed) is 404 not_found; no hits is 200 match:false", async () => {
    const unknown = await call({ id: "rabattg" });
    assertOutcome(unknown, { status: 404, error: "not_found", charged: false });
    const none = await call({ q: "Rabattgesetz" });
    assertOutcome(none, { status: 200, match: false });
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "bgb", q: "x" }, "id"],
      [{ id: "§ 1 BGB" }, "id"],
      [{ q: "x", limit: "0" }, "limit"],
      [{ q: "x".repeat(201) }, "q"],
    ] as const) {
      const outcome = await call(params);
      assertOutcome(outcome, { status: 400, parameter }, JSON.stringify(params));
    }
  });
});

describe("the index warmer against a failing upstream", () => {
  it("a maintenance page served with 200, or a truncated TOC, leaves the index as it was", async () => {
    let answer = "<html><body>Wartungsarbeiten</body></html>";
    const upstream = await startLoopbackUpstream(() => ({
      status: 200,
      headers: { "content-type": "text/html" },
      body: answer,
    }));
    const live = await openFamilyContext(harness.family, {
      UPSTREAMS: "live",
      GOV_DE_GII_BASE_URL: upstream.baseUrl,
    });
    try {
      await assert.rejects(runWarmerRecorded(deIndexWarmer, live), /no <items>/);
      const toc = (n: number) =>
        `<items>${Array.from({ length: n }, (_, i) => `<item><title>Gesetz ${i}</title><link>http://www.gesetze-im-internet.de/g${i}/xml.zip</link></item>`).join("")}</items>`;
      answer = toc(10);
      await runWarmerRecorded(deIndexWarmer, live);
      answer = toc(3);
      await assert.rejects(runWarmerRecorded(deIndexWarmer, live), /refused/);
      assert.equal(await GovTitleIndex.of(live.store).count(DE_INDEX), 10);
    } finally {
      await live.close();
      await upstream.close();
    }
  });
});
