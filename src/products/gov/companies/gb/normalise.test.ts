// Companies House records on recordings of their documented shapes (absent keys, dissolved companies, earlier
// names), and the adapter against a loopback API: the key as HTTP Basic user, the shared spacing budget.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type FamilyTestContext,
  openFamilyContext,
  startLoopbackUpstream,
} from "../../../../../test/family-harness.ts";
import { govCompaniesFamily } from "../index.ts";
import { recordedJson } from "../recorded.test-helper.ts";
import { type ChProfile, type ChSearchItem, normaliseChItem, normaliseChProfile } from "./normalise.ts";
import { companiesHouseKey, GB_UPSTREAM, lookupGbCompany, searchGbCompanies } from "./upstream.ts";

/** The key as the family reads it when it is built. */
const keyOf = (ctx: FamilyTestContext) => companiesHouseKey(ctx.service.config.env);

describe("Companies House records", () => {
  it("a profile: the spec's UK fields, earlier names with validity windows, only the four links", () => {
    const company = normaliseChProfile(recordedJson<ChProfile>("gb-company-hit"));
    assert.deepEqual(
      [company.id, company.companyNumber, company.type, company.active],
      ["00445790", "00445790", "plc", true],
    );
    assert.deepEqual(company.address, {
      line1: "Tesco House, Shire Park",
      line2: "Kestrel Way",
      locality: "Welwyn Garden City",
      region: null,
      postalCode: "AL7 1GA",
      country: "United Kingdom",
    });
    assert.deepEqual(company.accounts, { nextDue: "2026-08-26", lastMadeUpTo: "2025-02-26", overdue: false });
    assert.deepEqual(company.confirmationStatement, {
      nextDue: "2027-07-02",
      lastMadeUpTo: "2026-06-18",
      overdue: false,
    });
    assert.deepEqual(company.previousNames, [
      { name: "TESCO STORES (HOLDINGS) LIMITED", from: "1947-11-27", to: "1981-12-14" },
    ]);
    assert.deepEqual(Object.keys(company.links), ["self", "filing_history", "officers"]);
    assert.equal(
      company.sourceUrl,
      "https://find-and-update.company-information.service.gov.uk/company/00445790",
    );
  });

  it("a dissolved company: inactive, its cessation date; absent keys read as null, never as false", () => {
    const company = normaliseChProfile(recordedJson<ChProfile>("gb-company-dissolved"));
    assert.deepEqual(
      [company.status, company.active, company.dateOfCessation],
      ["dissolved", false, "2015-06-30"],
    );
    assert.deepEqual(company.confirmationStatement, { nextDue: null, lastMadeUpTo: null, overdue: null });
    assert.deepEqual(company.accounts, { nextDue: null, lastMadeUpTo: "2014-03-31", overdue: null });
    assert.equal(company.hasCharges, null, "has_charges absent is unknown, not false");
    assert.equal(company.hasInsolvencyHistory, false);
    assert.deepEqual(company.sicCodes, []);
  });

  it("search items: address object, or the snippet when the address key is absent", () => {
    const { items } = recordedJson<{ items: ChSearchItem[] }>("gb-search-tesco");
    const [first, , dissolved] = items.map(normaliseChItem);
    assert.equal(
      (first?.address as { line1: string } | undefined)?.line1,
      "Tesco House, Shire Park, Kestrel Way",
    );
    assert.equal(dissolved?.address, "1 Example Street, Glasgow, G1 1AA");
    assert.deepEqual([dissolved?.active, dissolved?.dateOfCessation], [false, "2015-06-30"]);
  });
});

describe("Companies House adapter (live, loopback)", () => {
  it("sends the key as the Basic user name, and spaces requests through the shared budget", async () => {
    const seen: Array<{ path: string; auth?: string }> = [];
    const upstream = await startLoopbackUpstream((url, request) => {
      seen.push({ path: url.pathname + url.search, auth: request.headers.authorization });
      if (url.pathname === "/company/00000001") {
        return {
          status: 404,
          body: JSON.stringify({ errors: [{ error: "company-profile-not-found", type: "ch:service" }] }),
        };
      }
      if (url.pathname === "/company/00000002") return { status: 404, body: "<html>not here</html>" };
      return { status: 200, body: JSON.stringify({ items: [], total_results: 0 }) };
    });
    const ctx = await openFamilyContext(govCompaniesFamily, {
      UPSTREAMS: "live",
      COMPANIES_HOUSE_API_KEY: "test-key-123",
      GOV_GB_COMPANIES_HOUSE_BASE_URL: upstream.baseUrl,
    });
    try {
      const { search } = await searchGbCompanies(ctx, keyOf(ctx), "nothing here");
      assert.equal(search.totalCount, 0);
      assert.equal(seen[0]?.auth, `Basic ${Buffer.from("test-key-123:").toString("base64")}`);
      assert.match(
        seen[0]?.path ?? "",
        /^\/search\/companies\?q=nothing\+here&items_per_page=20&start_index=0$/,
      );
      assert.deepEqual(await lookupGbCompany(ctx, keyOf(ctx), "00000001"), { found: false });
      await assert.rejects(
        lookupGbCompany(ctx, keyOf(ctx), "00000002"),
        /HTTP 404/,
        "a bare 404 is an error, not 'no such company'",
      );
      assert.equal(GB_UPSTREAM.budget, "companies-house");
      assert.equal(GB_UPSTREAM.minIntervalMs, 500, "600 requests per 5 minutes at most, cluster-wide");
    } finally {
      await ctx.close();
      await upstream.close();
    }
  });

  it("without a key in live mode nothing is sent", async () => {
    const ctx = await openFamilyContext(govCompaniesFamily, { UPSTREAMS: "live" });
    try {
      await assert.rejects(searchGbCompanies(ctx, keyOf(ctx), "tesco"), /COMPANIES_HOUSE_API_KEY is not set/);
    } finally {
      await ctx.close();
    }
  });
});
