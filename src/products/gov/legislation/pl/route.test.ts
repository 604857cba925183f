import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FamilyTestContext, openFamilyContext } from "../../../../../test/family-harness.ts";
import type { AnyProduct } from "../../../../catalog/product.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { LEGISLATION_RECORDINGS_DIR } from "../index.ts";
import { plLegislation } from "./index.ts";
import { PL_ACT_QUEUE, parsePlAnswer } from "./route.ts";

let ctx: FamilyTestContext;
let route: AnyProduct;

before(async () => {
  ctx = await openFamilyContext(
    assembleGovFamily("gov-legislation-pl", [plLegislation], LEGISLATION_RECORDINGS_DIR, GOV_MIGRATIONS),
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
const runJob = async (id: string) => ctx.family.jobs?.[PL_ACT_QUEUE]?.({ id }, ctx);

describe("/v1/gov/pl/legislation", () => {
  it("a title search answers the hits with the licence and the recorded-sample notice", async () => {
    const outcome = await call({ q: "ochronie danych osobowych" });
    assert.equal(outcome.status, 200);
    const body = parsePlAnswer(outcome.body);
    assert.deepEqual([body.count, body.totalCount, body.match], [2, 2, true]);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
    assert.match(body.licence.name, /not protected by copyright/);
  });

  it("a Polish title with diacritics, typed decomposed (NFD), is searched as NFC and found", async () => {
    const outcome = await call({ q: "Kodeks wykroczeń".normalize("NFD") });
    assert.equal(outcome.status, 200);
    const body = parsePlAnswer(outcome.body);
    assert.equal(body.query, "Kodeks wykroczeń");
    assert.deepEqual(
      body.items?.map((i) => i.id),
      ["DU/1971/114"],
    );
    assert.equal(
      body.source,
      "https://api.sejm.gov.pl/eli/acts/search?title=Kodeks+wykrocze%C5%84&limit=20&offset=0",
    );
  });

  it("no hits is 200 match:false; an upstream failure is 503 not charged", async () => {
    const none = await call({ q: "qqxyzzy" });
    assert.deepEqual([none.status, field(none, "match")], [200, false]);
    const failed = await call({ q: "awaria" });
    assert.deepEqual([failed.status, field(failed, "charged")], [503, false]);
  });

  it("an act not cached is queued (404 not_cached), fetched by the job, then served with its keywords", async () => {
    const miss = await call({ id: "Dz.U. 2018 poz. 1000" });
    assert.deepEqual(
      [miss.status, field(miss, "error"), field(miss, "retryAfterSec")],
      [404, "not_cached", 60],
    );
    await runJob("DU/2018/1000");
    const hit = await call({ id: "DU/2018/1000" });
    assert.equal(hit.status, 200);
    const body = parsePlAnswer(hit.body);
    assert.deepEqual([body.found, body.id, body.inForce, body.type], [true, "DU/2018/1000", true, "Ustawa"]);
    assert.ok(body.keywords?.includes("ochrona danych osobowych"));
    assert.equal(body.apiUrl, "https://api.sejm.gov.pl/eli/acts/DU/2018/1000");
  });

  it("a repealed act is served with inForce false; an unknown act is 404 not_found", async () => {
    await runJob("DU/1997/883");
    const repealed = parsePlAnswer((await call({ id: "DU/1997/883" })).body);
    assert.deepEqual([repealed.inForce, repealed.dates?.repealed], [false, "2018-05-25"]);
    await runJob("DU/2018/99999");
    const unknown = await call({ id: "DU/2018/99999" });
    assert.deepEqual(
      [unknown.status, field(unknown, "error"), field(unknown, "charged")],
      [404, "not_found", false],
    );
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "DU/2018/1000", q: "x" }, "id"],
      [{ id: "2018/1000" }, "id"],
      [{ q: "ż".repeat(201) }, "q"],
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
