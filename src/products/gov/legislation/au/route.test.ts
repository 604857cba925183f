import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FamilyTestContext, openFamilyContext } from "../../../../../test/family-harness.ts";
import type { AnyProduct } from "../../../../catalog/product.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { LEGISLATION_RECORDINGS_DIR } from "../index.ts";
import { auLegislation } from "./index.ts";
import { AU_ACT_QUEUE, parseAuAnswer } from "./route.ts";

let ctx: FamilyTestContext;
let route: AnyProduct;

before(async () => {
  ctx = await openFamilyContext(
    assembleGovFamily("gov-legislation-au", [auLegislation], LEGISLATION_RECORDINGS_DIR, GOV_MIGRATIONS),
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
const runJob = async (id: string) => ctx.family.jobs?.[AU_ACT_QUEUE]?.({ id }, ctx);

describe("/v1/gov/au/legislation", () => {
  it("a title search answers one explicit page with CC BY 4.0 and the sample notice", async () => {
    const outcome = await call({ q: "PRIVACY" });
    assert.equal(outcome.status, 200);
    const body = parseAuAnswer(outcome.body);
    assert.deepEqual([body.count, body.totalCount, body.match], [2, 2, true]);
    assert.deepEqual(
      body.items?.map((i) => [i.id, (i as { principal?: boolean }).principal]),
      [
        ["C2004A03712", true],
        ["C2012A00197", false],
      ],
    );
    assert.equal(body.licence.name, "Creative Commons Attribution 4.0 International (CC BY 4.0)");
    assert.match(body.licence.attribution ?? "", /© Commonwealth of Australia/);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
    // The page asked for carries its filter and an explicit $skip (nextLink is never followed).
    const source = new URL(body.source);
    assert.equal(source.searchParams.get("$filter"), "contains(tolower(name),'privacy')");
    assert.deepEqual([source.searchParams.get("$top"), source.searchParams.get("$skip")], ["20", "0"]);
  });

  it("no hits is 200 match:false; a maintenance page served with 200 is 503 not charged", async () => {
    const none = await call({ q: "qqxyzzy" });
    assert.deepEqual([none.status, field(none, "match")], [200, false]);
    const failed = await call({ q: "maintenance" });
    assert.deepEqual([failed.status, field(failed, "charged")], [503, false]);
  });

  it("a title not cached is queued, fetched by the job, then served with principal", async () => {
    const miss = await call({ id: "c2004a03712" });
    assert.deepEqual(
      [miss.status, field(miss, "error"), field(miss, "retryAfterSec")],
      [404, "not_cached", 60],
    );
    await runJob("C2004A03712");
    const body = parseAuAnswer((await call({ id: "C2004A03712" })).body);
    assert.deepEqual(
      [body.found, body.title, body.inForce, body.principal],
      [true, "Privacy Act 1988", true, true],
    );
    assert.equal(body.apiUrl, "https://api.prod.legislation.gov.au/v1/Titles('C2004A03712')");
  });

  it("a repealed instrument is inForce false; an unknown id is 404 not_found, not charged", async () => {
    await runJob("F2019L01091");
    const repealed = parseAuAnswer((await call({ id: "F2019L01091" })).body);
    assert.deepEqual(
      [repealed.inForce, repealed.principal, repealed.dates?.repealed],
      [false, false, "2019-11-15"],
    );
    await runJob("C2099A99999");
    const unknown = await call({ id: "C2099A99999" });
    assert.deepEqual(
      [unknown.status, field(unknown, "error"), field(unknown, "charged")],
      [404, "not_found", false],
    );
  });

  it("bad input is refused naming the parameter", async () => {
    for (const [params, parameter] of [
      [{}, "q"],
      [{ id: "C2004A03712", q: "x" }, "id"],
      [{ id: "Privacy Act" }, "id"],
      [{ q: "x".repeat(201) }, "q"],
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
