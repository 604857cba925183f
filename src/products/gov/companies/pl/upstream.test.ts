// The KRS adapter on recordings (P then S, unknown numbers, the maintenance page served with 200, errors), our
// name index filled by lookups, and the daily bulletin against a loopback KRS.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FamilyTestContext,
  openFamilyContext,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../../../test/family-harness.ts";
import { govCompaniesFamily } from "../index.ts";
import { companyQueue } from "../register.ts";
import { BULLETIN_SPACING_MS, bulletinState, plBulletinWarmer } from "./bulletin.ts";
import { PL_INFO } from "./info.ts";
import { searchPlIndex } from "./name-index.ts";
import { lookupPlCompany } from "./upstream.ts";

const lookupAndIndex = (ctx: FamilyTestContext, krs: string) =>
  ctx.family.jobs?.[companyQueue(PL_INFO)]?.({ id: krs }, ctx);

describe("KRS adapter (replayed)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openFamilyContext(govCompaniesFamily);
  });
  after(() => ctx.close());

  it("register P first, then S; a number in neither is not found", async () => {
    const company = await lookupPlCompany(ctx, "0000019193");
    assert.ok(company.found);
    assert.equal(company.company.register, "P");
    assert.match(company.company.apiUrl, /OdpisPelny\/0000019193\?rejestr=P&format=json$/);
    const association = await lookupPlCompany(ctx, "0000056711");
    assert.ok(association.found);
    assert.equal(association.company.register, "S");
    assert.deepEqual(await lookupPlCompany(ctx, "0000999999"), { found: false });
  });

  it("the maintenance page served with HTTP 200 is an unavailable upstream, never data; a 500 is an error", async () => {
    await assert.rejects(lookupPlCompany(ctx, "0000777777"), /maintenance page \(Przerwa techniczna\)/);
    await assert.rejects(lookupPlCompany(ctx, "0000888888"), /HTTP 500/);
  });

  it("a lookup adds the entity to our name index: found by part of its name, a former name or its NIP", async () => {
    const empty = await searchPlIndex(ctx, PL_INFO, "przykład");
    assert.equal(empty.ok, false);
    await lookupAndIndex(ctx, "0000019193");
    await lookupAndIndex(ctx, "0000413516");
    for (const [q, ids] of [
      ["przykład", ["0000019193", "0000413516"]],
      ["koncern naftowy", ["0000019193"]],
      ["7740001454", ["0000019193"]],
    ] as const) {
      const found = await searchPlIndex(ctx, PL_INFO, q);
      assert.ok(found.ok, q);
      const body = found.body as { items: Array<{ id: string; vatId: string | null }>; indexSize: number };
      assert.deepEqual(body.items.map((i) => i.id).sort(), [...ids], q);
      assert.equal(body.indexSize, 2);
    }
    const none = await searchPlIndex(ctx, PL_INFO, "zzqqxx");
    assert.ok(!none.ok);
    assert.deepEqual(
      [none.outcome.status, none.outcome.body.charged, none.outcome.body.indexSize],
      [404, false, 2],
    );
  });

  it("the bulletin is not read in replay mode", async () => {
    const counts = await plBulletinWarmer(companyQueue(PL_INFO)).run(ctx);
    assert.match(String(counts.skipped), /live only/);
  });
});

describe("KRS bulletin (loopback KRS)", () => {
  const NOW = new Date("2026-11-20T06:00:00Z");
  let ctx: FamilyTestContext;
  let maintenance = false;
  let krs: Awaited<ReturnType<typeof startLoopbackUpstream>>;
  before(async () => {
    krs = await startLoopbackUpstream((url) => {
      if (maintenance)
        return { status: 200, headers: { "content-type": "text/html" }, body: "<h1>Przerwa techniczna</h1>" };
      const day = /\/Biuletyn\/(\d{4}-\d{2}-\d{2})$/.exec(url.pathname)?.[1];
      const lists: Record<string, string[]> = {
        "2026-11-18": ["0000019193", "0000413516", "0000019193", "not-a-number"],
        "2026-11-19": ["0000056711"],
      };
      return day && lists[day]
        ? { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(lists[day]) }
        : { status: 404, body: "" };
    });
    ctx = await openFamilyContext(govCompaniesFamily, {
      UPSTREAMS: "live",
      GOV_PL_KRS_BASE_URL: krs.baseUrl,
    });
  });
  after(async () => {
    await ctx.close();
    await krs.close();
  });

  it("queues each changed number once, keyed apart from buyers' lookups; then reads on from the last day", async () => {
    const queue = companyQueue(PL_INFO);
    const clock = { now: new Date(NOW.getTime() - 24 * 3600_000) };
    const warmer = plBulletinWarmer(queue, () => clock.now);
    const first = await runWarmerRecorded(warmer, ctx);
    assert.deepEqual([first.days, first.numbers, first.queued, first.lastDay], [1, 4, 2, "2026-11-18"]);
    assert.deepEqual(
      krs.requests.map((u) => u.pathname + u.search),
      ["/Biuletyn/2026-11-18?godzinaOd=00&godzinaDo=23"],
    );
    const jobs = await ctx.store.jobs.counts(queue);
    assert.equal(jobs.queued, 2);
    // A buyer asking for a number the bulletin queued is still queued for at once (its own key).
    assert.equal(await ctx.store.jobs.enqueue(queue, "0000413516", { id: "0000413516" }), true);
    clock.now = NOW;
    const second = await runWarmerRecorded(warmer, ctx);
    assert.deepEqual([second.days, second.queued, second.lastDay], [1, 1, "2026-11-19"]);
    assert.deepEqual((await bulletinState(ctx))?.numbers, 1);
    assert.ok(BULLETIN_SPACING_MS >= 1000);
  });

  it("the maintenance page fails the run and keeps the last day read", async () => {
    maintenance = true;
    const warmer = plBulletinWarmer(companyQueue(PL_INFO), () => new Date(NOW.getTime() + 24 * 3600_000));
    await assert.rejects(runWarmerRecorded(warmer, ctx), /Przerwa techniczna/);
    assert.equal((await bulletinState(ctx))?.lastDay, "2026-11-19");
    maintenance = false;
  });
});
