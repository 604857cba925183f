import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../../test/family-harness.ts";
import { call, openTestContext } from "../harness.test-helper.ts";
import { insiderEarlyOpenings } from "./early-openings.ts";
import { insiderInfo } from "./info.ts";
import { InsiderStatusAnswer, insiderStatus } from "./status.ts";
import { isCurrent, TipsAnswer } from "./tips.ts";

describe("insider tips over the sample dataset (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("a tip is current until its validUntil day, or always without one", () => {
    assert.equal(isCurrent({ valid_until: null }, "2026-11-22"), true);
    assert.equal(isCurrent({ valid_until: "2026-11-22" }, "2026-11-22"), true);
    assert.equal(isCurrent({ valid_until: "2026-11-21" }, "2026-11-22"), false);
  });

  it("without id: every current tip, newest first, in the local language, with resort and country", async () => {
    const { status, body } = await call(insiderInfo, {}, ctx);
    assert.equal(status, 200);
    TipsAnswer.parse(body);
    assert.deepEqual(
      body.tips.map((t: { id: string }) => t.id),
      [
        "sample-tip-arlberg-breakfast",
        "sample-tip-silver-peak-early-opening",
        "sample-tip-alpenrose-early-opening",
        "sample-tip-tirol-road",
      ],
    );
    assert.equal(body.count, 4);
    const tip = body.tips[2];
    assert.deepEqual(
      [tip.resortId, tip.resortName, tip.country, tip.date, tip.language, tip.kind],
      [
        "sample-alpenrose",
        "Sample Resort Alpenrose (sample data)",
        "ch",
        "2026-11-10",
        "de",
        "early-opening",
      ],
    );
    assert.match(tip.text, /^Sample-Tipp \(Beispieldaten\): Die Sample-Gondel/);
    assert.equal(body.tips[3].resortId, null, "a country-wide tip has no resort");
    assert.match(body.notice, /^SAMPLE DATA, NOT REAL/);
  });

  it("with id: that one tip, even when it has expired; an unknown id is a 404 before payment", async () => {
    const { body } = await call(insiderInfo, { id: "sample-tip-alpenrose-easter-crowds" }, ctx);
    assert.deepEqual(
      [body.count, body.tips[0].id, body.tips[0].validUntil],
      [1, "sample-tip-alpenrose-easter-crowds", "2025-04-21"],
    );
    const outcome = await insiderInfo.check!({ query: { id: "no-such-tip" }, body: undefined }, ctx);
    assert.deepEqual([outcome?.status, outcome?.body.charged], [404, false]);
  });

  it("early openings: current tips of kind early-opening only", async () => {
    const { body } = await call(insiderEarlyOpenings, {}, ctx);
    TipsAnswer.parse(body);
    assert.deepEqual(
      body.tips.map((t: { id: string }) => t.id),
      ["sample-tip-silver-peak-early-opening", "sample-tip-alpenrose-early-opening"],
    );
    assert.ok(body.tips.every((t: { kind: string }) => t.kind === "early-opening"));
  });

  it("early openings narrowed to one country", async () => {
    const { body } = await call(insiderEarlyOpenings, { country: "CH" }, ctx);
    assert.deepEqual(
      body.tips.map((t: { id: string }) => t.id),
      ["sample-tip-alpenrose-early-opening"],
    );
    const none = await call(insiderEarlyOpenings, { country: "fr" }, ctx);
    assert.deepEqual([none.body.count, none.body.tips], [0, []]);
  });

  it("status: tips on file and current, per country and kind", async () => {
    const { body } = await call(insiderStatus, {}, ctx);
    InsiderStatusAnswer.parse(body);
    assert.deepEqual([body.tips, body.current], [5, 4]);
    assert.deepEqual(body.byCountry, { at: 2, ch: 1, us: 1 });
    assert.deepEqual(body.byKind, { "early-opening": 2, food: 1, transport: 1 });
    assert.deepEqual(body.languages, ["de", "en"]);
    assert.equal(body.latestDate, "2026-11-18");
    assert.equal(body.sampleData, true);
  });

  it("declares its prices: 1.00 per call, free status", () => {
    assert.equal(insiderInfo.price, "1.00");
    assert.equal(insiderEarlyOpenings.price, "1.00");
    assert.equal(insiderStatus.price, "0");
  });
});
