import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { DEDUPE_RULE } from "./derive-financials.ts";
import { edgarFinancials, FinancialsAnswer, FinancialsQuery } from "./financials.ts";
import { openTestContext, openWarmedContext } from "./harness.test-helper.ts";
import { COMPANY_QUEUE } from "./jobs.ts";
import { LINE_ITEMS } from "./line-items.ts";

const query = (params: Record<string, string>) => FinancialsQuery.parse(params);

function issueOf(params: Record<string, string>) {
  const result = FinancialsQuery.safeParse(params);
  assert.equal(result.success, false, `expected ${JSON.stringify(params)} to be rejected`);
  const issue = result.error!.issues[0]!;
  return { path: issue.path.join("."), message: issue.message };
}

describe("edgar.financials query", () => {
  it("accepts line item names and their XBRL tags, any case, in tags", () => {
    assert.deepEqual(query({ ticker: "AAPL", tags: "revenue, NetIncomeLoss,epsdiluted,Revenues" }).tags, [
      "revenue",
      "netIncome",
      "epsDiluted",
    ]);
    assert.deepEqual(query({ cik: "789019", tags: "us-gaap:SalesRevenueNet", period: "quarterly" }), {
      cik: "0000789019",
      tags: ["revenue"],
      period: "quarterly",
    });
  });

  it("rejects unknown tags, an unknown period and a missing or doubled company", () => {
    const unknown = issueOf({ ticker: "AAPL", tags: "revenue,EBITDA" });
    assert.equal(unknown.path, "tags");
    assert.match(unknown.message, /unknown line item "EBITDA"; known: revenue, costOfRevenue/);
    assert.equal(issueOf({ ticker: "AAPL", tags: " , " }).path, "tags");
    assert.equal(issueOf({ ticker: "AAPL", period: "monthly" }).path, "period");
    assert.equal(issueOf({ ticker: "AAPL", period: "" }).path, "period");
    assert.equal(issueOf({ tags: "revenue" }).path, "ticker");
    assert.equal(issueOf({ ticker: "AAPL", cik: "320193" }).path, "cik");
  });

  it("has about 40 standard line items, each with at least one XBRL tag", () => {
    assert.ok(LINE_ITEMS.length >= 38 && LINE_ITEMS.length <= 45, `${LINE_ITEMS.length} items`);
    const revenue = LINE_ITEMS.find((item) => item.name === "revenue")!;
    assert.deepEqual(revenue.tags.slice(0, 2), [
      "Revenues",
      "RevenueFromContractWithCustomerExcludingAssessedTax",
    ]);
    assert.ok(revenue.tags.includes("SalesRevenueNet"));
    assert.equal(new Set(LINE_ITEMS.map((item) => item.name)).size, LINE_ITEMS.length);
  });
});

describe("edgar.financials before the company is cached", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("queues the company and answers 404 not charged", async () => {
    const outcome = await edgarFinancials.handle({ query: query({ cik: "200406" }), body: undefined }, ctx);
    assert.equal(outcome.status, 404);
    assert.equal(outcome.body.error, "not_cached");
    assert.equal(outcome.body.charged, false);
    assert.ok(Number(outcome.body.retryAfterSec) > 0);
    assert.equal((await ctx.store.jobs.get(COMPANY_QUEUE, "0000200406"))?.state, "queued");
  });
});

describe("edgar.financials from the warmed cache (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openWarmedContext();
  });
  after(() => ctx.close());

  async function answer(params: Record<string, string>) {
    const outcome = await edgarFinancials.handle({ query: query(params), body: undefined }, ctx);
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    return FinancialsAnswer.parse(outcome.body);
  }

  it("answers every line item the company reports, with the spec's fields", async () => {
    const body = await answer({ ticker: "AAPL" });
    assert.deepEqual(Object.keys(body), [
      "cik",
      "entityName",
      "fetchedAt",
      "source",
      "tagCount",
      "periods",
      "latestPeriodEnd",
      "availableTags",
      "facts",
    ]);
    assert.equal(body.cik, "0000320193");
    assert.equal(body.entityName, "Apple Inc.");
    assert.equal(body.source, "https://data.sec.gov/api/xbrl/companyfacts/CIK0000320193.json");
    assert.equal(body.tagCount, 14);
    assert.deepEqual(body.periods, { annual: 10, quarterly: 9, dedupe: DEDUPE_RULE });
    assert.equal(body.latestPeriodEnd.revenue, "2025-09-27");
    assert.equal(body.availableTags.length, 14);
    assert.deepEqual(Object.keys(body.facts.revenue!), [
      "taxonomy",
      "label",
      "unit",
      "xbrlTags",
      "annual",
      "quarterly",
    ]);
    assert.deepEqual(Object.keys(body.facts.revenue!.quarterly[0]!), [
      "period",
      "start",
      "end",
      "value",
      "form",
      "filed",
      "accn",
      "tag",
      "derived",
    ]);
  });

  it("limits the line items to tags, and the periods to period", async () => {
    const body = await answer({ ticker: "AAPL", tags: "Revenues,epsDiluted,inventory", period: "quarterly" });
    assert.deepEqual(Object.keys(body.facts), ["revenue", "epsDiluted"]);
    assert.equal(body.tagCount, 2);
    assert.deepEqual(body.latestPeriodEnd, { revenue: "2025-09-27", epsDiluted: "2025-09-27" });
    assert.deepEqual(body.facts.revenue?.annual, []);
    assert.equal(body.facts.revenue?.quarterly.length, 8);
    assert.deepEqual(body.periods.annual, 0);
    assert.deepEqual(body.periods.quarterly, 8);
    // availableTags still says what can be asked for.
    assert.equal(body.availableTags.length, 14);

    const annual = await answer({ ticker: "JNJ", tags: "revenue", period: "annual" });
    assert.deepEqual(
      annual.facts.revenue?.annual.map((e) => e.value / 1e6),
      [70100, 71900, 76500, 81600, 82100],
    );
    assert.deepEqual(annual.facts.revenue?.quarterly, []);
    assert.deepEqual(annual.periods, { annual: 5, quarterly: 0, dedupe: DEDUPE_RULE });
  });

  it("serves the sample request", async () => {
    const body = await answer(edgarFinancials.sample!);
    assert.deepEqual(Object.keys(body.facts), ["revenue", "netIncome", "epsDiluted"]);
    assert.equal(body.facts.netIncome?.annual.at(-1)?.value, 112_000_000_000);
  });
});
