import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FamilyTestContext,
  openFamilyContext,
  runWarmerRecorded,
} from "../../../../../test/family-harness.ts";
import type { AnyProduct, Warmer } from "../../../../catalog/product.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { LEGISLATION_RECORDINGS_DIR } from "../index.ts";
import { euLegislation } from "./index.ts";
import { EU_ACT_QUEUE, EU_INDEX_QUEUE, parseEuAnswer } from "./route.ts";

let ctx: FamilyTestContext;
let route: AnyProduct;

before(async () => {
  ctx = await openFamilyContext(
    assembleGovFamily("gov-legislation-eu", [euLegislation], LEGISLATION_RECORDINGS_DIR, GOV_MIGRATIONS),
  );
  route = ctx.family.products[0] as AnyProduct;
});
after(() => ctx.close());

async function call(params: Record<string, string>) {
  const parsed = route.query?.safeParse(params);
  if (!parsed?.success)
    return { status: 400, body: { parameter: String(parsed?.error.issues[0]?.path[0]) } } as const;
  return route.handle({ query: parsed.data, body: undefined }, ctx);
}
const field = (outcome: { body: unknown }, name: string) => (outcome.body as Record<string, unknown>)[name];
const runJob = async (id: string) => ctx.family.jobs?.[EU_ACT_QUEUE]?.({ id }, ctx);

describe("/v1/gov/eu/eurlex", () => {
  it("before the index is built a search is 404 not_cached and queues the build", async () => {
    const outcome = await call({ q: "personal data" });
    assert.deepEqual(
      [outcome.status, field(outcome, "error"), field(outcome, "charged")],
      [404, "not_cached", false],
    );
    assert.equal((await ctx.store.jobs.get(EU_INDEX_QUEUE, "index"))?.state, "queued");
  });

  it("the warmer builds the index; a title search answers with the EUR-Lex notice", async () => {
    const counts = await runWarmerRecorded(ctx.family.warmers?.[0] as Warmer, ctx);
    assert.deepEqual(counts, { pages: 1, indexed: 4 });
    const outcome = await call({ q: "Protection of Personal DATA" });
    assert.equal(outcome.status, 200);
    const body = parseEuAnswer(outcome.body);
    assert.deepEqual(body.items?.map((i) => i.id).sort(), ["31995L0046", "32016R0679"]);
    assert.equal(body.totalCount, 2);
    assert.match(body.licence.name, /2011\/833\/EU/);
    assert.match(body.licence.attribution ?? "", /© European Union/);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE.*authentic/);
  });

  it("diacritics are folded both ways, and the act number finds the act", async () => {
    const plain = parseEuAnswer((await call({ q: "cote d ivoire" })).body);
    assert.deepEqual(
      plain.items?.map((i) => i.id),
      ["32021D1234"],
    );
    const accented = parseEuAnswer((await call({ q: "CÔTE" })).body);
    assert.deepEqual(
      accented.items?.map((i) => i.id),
      ["32021D1234"],
    );
    const byNumber = parseEuAnswer((await call({ q: "2016/679" })).body);
    assert.equal(byNumber.items?.[0]?.id, "32016R0679");
    const none = await call({ q: "qqxyzzy" });
    assert.deepEqual([none.status, field(none, "match")], [200, false]);
  });

  it("an act not cached is queued, fetched by the job, then served with its Cellar URI", async () => {
    const miss = await call({ id: "CELEX:32016R0679" });
    assert.deepEqual(
      [miss.status, field(miss, "error"), field(miss, "retryAfterSec")],
      [404, "not_cached", 60],
    );
    await runJob("32016R0679");
    const body = parseEuAnswer((await call({ id: "32016R0679" })).body);
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
    const repealed = parseEuAnswer((await call({ id: "31995L0046" })).body);
    assert.deepEqual([repealed.inForce, repealed.dates?.endOfValidity], [false, "2018-05-24"]);
    await runJob("32099R9999");
    const unknown = await call({ id: "32099R9999" });
    assert.deepEqual([unknown.status, field(unknown, "error")], [404, "not_found"]);
    await assert.rejects(runJob("32000R0001"), /maintenance/);
    const failed = await call({ id: "32000R0001" });
    assert.deepEqual([failed.status, field(failed, "error")], [404, "not_cached"]);
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
      assert.deepEqual(
        [outcome.status, field(outcome, "parameter")],
        [400, parameter],
        JSON.stringify(params),
      );
    }
  });
});
