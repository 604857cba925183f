import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { openTestContext, openWarmedContext } from "./harness.test-helper.ts";
import { edgarSearch, SearchAnswer, SearchQuery } from "./search.ts";

function issueOf(params: Record<string, string>) {
  const result = SearchQuery.safeParse(params);
  assert.equal(result.success, false, `expected ${JSON.stringify(params)} to be rejected`);
  return result.error!.issues[0]!.path.join(".");
}

describe("edgar.search query", () => {
  it("needs q and a limit from 1 to 50, 10 by default", () => {
    assert.deepEqual(SearchQuery.parse({ q: " apple " }), { q: "apple", limit: 10 });
    assert.deepEqual(SearchQuery.parse({ q: "apple", limit: "50" }), { q: "apple", limit: 50 });
    assert.equal(issueOf({}), "q");
    assert.equal(issueOf({ q: "  " }), "q");
    for (const limit of ["0", "51", "2.5", "ten", "", "-1"])
      assert.equal(issueOf({ q: "apple", limit }), "limit", limit);
  });
});

describe("edgar.search", () => {
  let cold: FamilyTestContext;
  let ctx: FamilyTestContext;
  before(async () => {
    cold = await openTestContext();
    ctx = await openWarmedContext();
  });
  after(async () => {
    await cold.close();
    await ctx.close();
  });

  it("queues the ticker list when it is not cached yet", async () => {
    const outcome = await edgarSearch.handle({ query: { q: "apple", limit: 10 }, body: undefined }, cold);
    assert.equal(outcome.status, 404);
    assert.equal(outcome.body.error, "not_cached");
    assert.equal((await cold.store.jobs.get("warmer", "edgar.tickers"))?.state, "queued");
  });

  it("answers hits in order with the spec's fields", async () => {
    const outcome = await edgarSearch.handle(
      { query: SearchQuery.parse({ q: "apple" }), body: undefined },
      ctx,
    );
    assert.equal(outcome.status, 200);
    const body = SearchAnswer.parse(outcome.body);
    assert.deepEqual(Object.keys(body), ["query", "source", "fetchedAt", "count", "hits", "match"]);
    assert.equal(body.query, "apple");
    assert.equal(body.source, "https://www.sec.gov/files/company_tickers.json");
    assert.equal(body.count, 2);
    assert.equal(body.match, true);
    assert.deepEqual(body.hits, [
      { cik: "0000320193", ticker: "AAPL", name: "Apple Inc.", matchedBy: "namePrefix" },
      { cik: "0001418121", ticker: "APLE", name: "Apple Hospitality REIT, Inc.", matchedBy: "namePrefix" },
    ]);
  });

  it("honours limit and says when nothing matches (a charged 200)", async () => {
    const limited = SearchAnswer.parse(
      (await edgarSearch.handle({ query: SearchQuery.parse({ q: "a", limit: "2" }), body: undefined }, ctx))
        .body,
    );
    assert.equal(limited.count, 2);
    const none = await edgarSearch.handle(
      { query: SearchQuery.parse({ q: "zzz no such" }), body: undefined },
      ctx,
    );
    assert.equal(none.status, 200);
    const body = SearchAnswer.parse(none.body);
    assert.equal(body.match, false);
    assert.equal(body.count, 0);
    assert.match(body.message ?? "", /No company/);
  });
});
