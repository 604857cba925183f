import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { EcbFxAnswer, EcbFxQuery, ecbFx, FX_RETRY_AFTER_SEC, parsePair } from "./fx.ts";
import { openTestContext, runWarmerRecorded } from "./harness.test-helper.ts";
import { ecbFxWarmer } from "./warmer.ts";

/** The query as the route hands it over: aliases renamed, then validated by the product's schema. */
function queryOf(params: Record<string, string>) {
  const renamed = Object.fromEntries(Object.entries(params).map(([k, v]) => [ecbFx.aliases?.[k] ?? k, v]));
  return EcbFxQuery.parse(renamed);
}

function issueOf(params: Record<string, unknown>) {
  const result = EcbFxQuery.safeParse(params);
  assert.equal(result.success, false, `expected ${JSON.stringify(params)} to be rejected`);
  const issue = result.error!.issues[0]!;
  return { path: issue.path.join("."), message: issue.message };
}

describe("macro.ecb.fx query", () => {
  it("accepts a currency code or a EUR pair in every documented spelling", () => {
    for (const pair of ["USD", "usd", " usd ", "EURUSD", "eurusd", "EUR/USD", "EUR-USD", "eur/usd"]) {
      assert.deepEqual(queryOf({ pair }), { pair: "USD" }, pair);
    }
  });

  it("takes currency as an alias of pair", () => {
    assert.deepEqual(ecbFx.aliases, { currency: "pair" });
    assert.deepEqual(queryOf({ currency: "EUR/JPY" }), { pair: "JPY" });
  });

  it("rejects malformed values with a 400 naming pair", () => {
    for (const pair of ["US", "USDX", "12$", "EUR_USD", "EUR/US", "", "dollar"]) {
      const issue = issueOf({ pair });
      assert.equal(issue.path, "pair", pair);
      assert.match(issue.message, /pair/, pair);
    }
    assert.equal(issueOf({}).path, "pair");
    assert.match(issueOf({}).message, /pair is required/);
  });

  it("explains that the base is EUR when asked for EUR itself or an inverted pair", () => {
    for (const pair of ["EUR", "eur", "EUREUR"]) {
      const issue = issueOf({ pair });
      assert.equal(issue.path, "pair");
      assert.match(issue.message, /base is always EUR/);
    }
    const inverse = issueOf({ pair: "USD/EUR" });
    assert.match(inverse.message, /ask for EURUSD/);
    assert.match((parsePair("USDEUR") as { error: string }).error, /ask for EURUSD/);
  });

  it("declares its catalog entry", () => {
    assert.equal(ecbFx.sku, "macro.ecb.fx");
    assert.equal(ecbFx.method, "GET");
    assert.equal(ecbFx.path, "/v1/macro/ecb/fx");
    assert.equal(ecbFx.price, "0.005");
    assert.equal(ecbFx.status, "live");
    assert.deepEqual(ecbFx.sample, { pair: "USD" });
    assert.equal(ecbFx.source?.licence.attribution, "Source: European Central Bank (ECB), Data Portal");
  });
});

describe("macro.ecb.fx over the recorded sample (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(async () => {
    await ctx.close();
  });

  it("before the warmer has run: passes the check, answers 404 not_cached and queues the warmer", async () => {
    const input = { query: queryOf({ pair: "USD" }), body: undefined };
    assert.equal(await ecbFx.check?.(input, ctx), undefined);
    const outcome = await ecbFx.handle(input, ctx);
    assert.equal(outcome.status, 404);
    assert.equal(outcome.body.error, "not_cached");
    assert.equal(outcome.body.charged, false);
    assert.equal(outcome.body.retryAfterSec, FX_RETRY_AFTER_SEC);
    const job = await ctx.store.jobs.get("warmer", "ecb.fx");
    assert.equal(job?.state, "queued");
    assert.deepEqual(JSON.parse(job.payload), { warmer: "ecb.fx" });
    // A second miss does not queue a second job.
    await ecbFx.handle(input, ctx);
    assert.deepEqual(await ctx.store.jobs.counts("warmer"), { queued: 1, running: 0, done: 0, dead: 0 });
  });

  it("after the warmer has run: answers EURUSD with the spec's fields and three months in date order", async () => {
    const counts = await runWarmerRecorded(ecbFxWarmer, ctx);
    assert.deepEqual(counts, { currencies: 23, observations: 1610, latestDate: "2026-11-20" });

    const input = { query: queryOf({ pair: "EUR/USD" }), body: undefined };
    assert.equal(await ecbFx.check?.(input, ctx), undefined);
    const outcome = await ecbFx.handle(input, ctx);
    assert.equal(outcome.status, 200);
    const body = EcbFxAnswer.parse(outcome.body);
    assert.deepEqual(Object.keys(body), [
      "ok",
      "pair",
      "base",
      "quote",
      "currency",
      "latest",
      "count",
      "observations",
      "source",
      "fetchedAt",
      "notice",
    ]);
    assert.equal(body.ok, true);
    assert.equal(body.pair, "EURUSD");
    assert.equal(body.base, "EUR");
    assert.equal(body.quote, "USD");
    assert.equal(body.currency, "US dollar");
    assert.deepEqual(body.latest, { date: "2026-11-20", rate: 1.1615 });
    assert.equal(body.count, 70);
    assert.equal(body.observations.length, 70);
    assert.deepEqual(body.observations.at(-1), body.latest);
    const dates = body.observations.map((o) => o.date);
    assert.deepEqual(dates, [...dates].sort());
    const spanDays = (Date.parse(dates.at(-1)!) - Date.parse(dates[0]!)) / 86_400_000;
    assert.ok(spanDays >= 85 && spanDays <= 100, `history spans ${spanDays} days`);
    assert.match(
      body.source,
      /^https:\/\/data-api\.ecb\.europa\.eu\/service\/data\/EXR\/D\.\.EUR\.SP00\.A\?format=csvdata&startPeriod=\d{4}-\d{2}-\d{2}$/,
    );
    assert.ok(Date.now() - Date.parse(body.fetchedAt) < 60_000);
    assert.match(body.notice, /RECORDED SAMPLE, NOT LIVE DATA/);
    assert.match(body.notice, /Source: European Central Bank \(ECB\)/);
    assert.match(body.notice, /information purposes only/);
  });

  it("answers other currencies with their own names and decimals", async () => {
    const outcome = await ecbFx.handle({ query: queryOf({ currency: "gbp" }), body: undefined }, ctx);
    assert.equal(outcome.status, 200);
    const body = EcbFxAnswer.parse(outcome.body);
    assert.equal(body.pair, "EURGBP");
    assert.equal(body.currency, "UK pound sterling");
    // GBP carries five decimals, as the ECB publishes it.
    assert.ok((String(body.latest.rate).split(".")[1]?.length ?? 0) <= 5);
    assert.equal(body.latest.rate, 0.87215);
  });

  it("rejects a currency the ECB does not publish before payment, listing the known ones", async () => {
    const outcome = await ecbFx.check?.({ query: queryOf({ pair: "XAU" }), body: undefined }, ctx);
    assert.equal(outcome?.status, 400);
    assert.equal(outcome.body.error, "invalid_parameter");
    assert.equal(outcome.body.parameter, "pair");
    assert.equal(outcome.body.charged, false);
    assert.match(outcome.body.message, /XAU/);
    const known = outcome.body.known as string[];
    assert.equal(known.length, 23);
    for (const code of ["USD", "JPY", "GBP", "CHF"]) assert.ok(known.includes(code), code);
  });
});
