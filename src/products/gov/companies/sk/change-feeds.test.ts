// The Slovak change feeds against loopback registers: RÚZ read page by page, RPO in one answer; only what we
// hold is re-queued, and a run reads from the day before the last good one.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FamilyTestContext,
  openFamilyContext,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../../../test/family-harness.ts";
import { storeItem, storeMissing } from "../../shared/item-cache.ts";
import { govCompaniesFamily } from "../index.ts";
import { cacheFamilyOf, companyQueue } from "../register.ts";
import { SK_ACCOUNTS_INFO } from "./accounts.ts";
import { readRpoChanges, readRuzChanges, skChangeFeedWarmers } from "./change-feeds.ts";
import { SK_COMPANIES_INFO } from "./companies.ts";

const NOW = new Date("2026-11-20T05:00:00Z");
const unitPage = (sourceId: number) => ({
  sourceUrl: `https://www.registeruz.sk/cruz-public/domain/accountingentity/show/${sourceId}`,
});

describe("Slovak change feeds (loopback registers)", () => {
  let ctx: FamilyTestContext;
  let registers: Awaited<ReturnType<typeof startLoopbackUpstream>>;
  before(async () => {
    registers = await startLoopbackUpstream((url) => {
      const json = (body: unknown) => ({
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (url.pathname === "/ruz/uctovne-jednotky") {
        return url.searchParams.get("pokracovat-za-id") === null
          ? json({ id: [1217556, 300], existujeDalsieId: true })
          : json({ id: [900], existujeDalsieId: false });
      }
      if (url.pathname === "/rpo/search" && url.searchParams.has("dbModificationDateAfter")) {
        return json({
          results: [
            { id: 1, identifiers: [{ value: "36421928", validFrom: "2004-08-12" }] },
            { id: 2, identifiers: [{ value: "99000008" }] },
            { id: 3, identifiers: [] },
          ],
        });
      }
      return { status: 404, body: "" };
    });
    ctx = await openFamilyContext(govCompaniesFamily, {
      UPSTREAMS: "live",
      GOV_SK_RUZ_BASE_URL: `${registers.baseUrl}/ruz`,
      GOV_SK_RPO_BASE_URL: `${registers.baseUrl}/rpo`,
    });
  });
  after(async () => {
    await ctx.close();
    await registers.close();
  });

  it("RÚZ: every page of changed units; the cached accounts of those units re-queued, others left", async () => {
    const family = cacheFamilyOf(SK_ACCOUNTS_INFO);
    await storeItem(ctx, family, "46792511", unitPage(1217556), false);
    await storeItem(ctx, family, "99000008", unitPage(777), false);
    await storeItem(ctx, family, "00000900", unitPage(900), false);
    await storeMissing(ctx, family, "12345679");
    const counts = await readRuzChanges(ctx, NOW);
    assert.deepEqual(counts, { since: "2026-11-19", changedUnits: 3, complete: true, requeued: 2 });
    const pages = registers.requests.filter((u) => u.pathname === "/ruz/uctovne-jednotky");
    assert.deepEqual(
      pages.map((u) => [u.searchParams.get("zmenene-od"), u.searchParams.get("pokracovat-za-id")]),
      [
        ["2026-11-19", null],
        ["2026-11-19", "1217556"],
      ],
    );
    assert.equal((await ctx.store.jobs.counts(companyQueue(SK_ACCOUNTS_INFO))).queued, 2);
  });

  it("RPO: the modified entities we hold are re-queued; a later run starts the day before the last good one", async () => {
    await storeItem(ctx, cacheFamilyOf(SK_COMPANIES_INFO), "36421928", { name: "cached" }, false);
    const [, rpo] = skChangeFeedWarmers(() => NOW);
    const first = await runWarmerRecorded(rpo as NonNullable<typeof rpo>, ctx);
    assert.deepEqual(first, { since: "2026-11-19", changed: 2, requeued: 1 });
    const later = await readRpoChanges(ctx, new Date(NOW.getTime() + 3 * 24 * 3600_000));
    assert.equal(later.since, new Date(Date.now() - 24 * 3600_000).toISOString().slice(0, 10));
    assert.equal((await ctx.store.jobs.counts(companyQueue(SK_COMPANIES_INFO))).queued, 1);
  });

  it("in replay mode the feeds are not read", async () => {
    const replay = await openFamilyContext(govCompaniesFamily);
    try {
      assert.match(String((await readRuzChanges(replay, NOW)).skipped), /live only/);
      assert.match(String((await readRpoChanges(replay, NOW)).skipped), /live only/);
    } finally {
      await replay.close();
    }
  });
});
