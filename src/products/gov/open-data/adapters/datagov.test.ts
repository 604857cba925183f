// catalog.data.gov's Catalog API on recordings of its documented shape: no total (null), the organisation
// or publisher, the DCAT licence URL passed through; dataset ids looked up by an exact slug match.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openFamilyContext, startLoopbackUpstream } from "../../../../../test/family-harness.ts";
import { govOpenDataFamily } from "../index.ts";
import { type DatagovResult, normaliseDatagovDetail, normaliseDatagovResult } from "./datagov.ts";
import { Answer, field, openRoute, type RouteHarness, recorded } from "./route-harness.ts";

const results = recorded<{ results: DatagovResult[]; after?: string }>("us-search-air-quality");

describe("catalog.data.gov results", () => {
  it("slug as id, organisation name, DCAT modified, distributions counted, licence URL", () => {
    const item = normaliseDatagovResult(results.results[0] as DatagovResult);
    assert.equal(item.id, "sample-air-quality-system-daily-summaries");
    assert.equal(item.organization, "Environmental Protection Agency");
    assert.equal(item.modified, "2023-06-22T20:25:39.652Z");
    assert.equal(item.resourceCount, 2);
    assert.equal(
      item.sourceUrl,
      "https://catalog.data.gov/dataset/sample-air-quality-system-daily-summaries",
    );
    assert.deepEqual(item.dataLicence, {
      id: null,
      title: null,
      url: "https://creativecommons.org/publicdomain/zero/1.0/",
    });
  });

  it("without an organisation the publisher string; without a licence null", () => {
    const item = normaliseDatagovResult(results.results[1] as DatagovResult);
    assert.equal(item.organization, "Sample County");
    assert.equal(item.dataLicence, null);
    assert.equal(item.modified, "2024-12-31T00:00:00.000Z");
  });

  it("the detail lists the DCAT distributions, download URL before access URL", () => {
    const detail = normaliseDatagovDetail(results.results[0] as DatagovResult);
    assert.deepEqual(detail.resources, [
      { name: "Daily summaries (CSV)", format: "CSV", url: "https://example.invalid/daily.zip" },
      { name: "AQS API", format: null, url: "https://example.invalid/aqs" },
    ]);
    assert.deepEqual(detail.keywords, ["air", "ozone"]);
  });
});

describe("/v1/gov/us/open-data (replayed)", () => {
  let us: RouteHarness;
  before(async () => {
    us = await openRoute("us");
  });
  after(() => us.close());

  it("the free sample answers offline; the portal gives no total, so totalCount is null", async () => {
    const outcome = await us.call(us.route.sample as Record<string, string>);
    assert.equal(outcome.status, 200);
    const body = Answer.parse(outcome.body);
    assert.deepEqual([body.count, body.totalCount, body.match], [2, null, true]);
    assert.match(body.licence.name, /Public domain/);
  });

  it("no hits: match:false with totalCount null; a refused key is 503 not charged", async () => {
    const none = Answer.parse((await us.call({ q: "qqqzzzxxy" })).body);
    assert.deepEqual([none.match, none.count, none.totalCount], [false, 0, null]);
    const refused = await us.call({ q: "no key" });
    assert.deepEqual([refused.status, field(refused, "charged")], [503, false]);
    assert.match(String(field(refused, "message")), /No api_key was supplied/);
  });

  it("a dataset by slug is found through the search; one the search does not return is not_found", async () => {
    const id = "sample-air-quality-system-daily-summaries";
    assert.equal((await us.call({ id })).status, 404);
    await us.fetchDataset(id);
    const body = Answer.parse((await us.call({ id })).body);
    assert.deepEqual([body.found, body.title], [true, "Sample Air Quality System Daily Summaries"]);
    await us.fetchDataset("qqqzzzxxy");
    assert.equal(field(await us.call({ id: "qqqzzzxxy" }), "error"), "not_found");
  });

  it("GOV_US_OPEN_DATA_API_KEY is sent as X-Api-Key once the API sits behind api.data.gov", async () => {
    const seen: Array<string | undefined> = [];
    const upstream = await startLoopbackUpstream((_url, request) => {
      seen.push(request.headers["x-api-key"] as string | undefined);
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ results: [] }),
      };
    });
    const live = await openFamilyContext(govOpenDataFamily, {
      UPSTREAMS: "live",
      GOV_US_OPEN_DATA_BASE_URL: upstream.baseUrl,
      GOV_US_OPEN_DATA_API_KEY: "test-key",
    });
    try {
      const route = live.family.products.find((p) => p.path === "/v1/gov/us/open-data");
      const parsed = route?.query?.safeParse({ q: "water" });
      assert.ok(parsed?.success);
      const outcome = await route?.handle({ query: parsed.data, body: undefined }, live);
      assert.equal(outcome?.status, 200);
      assert.deepEqual(seen, ["test-key"]);
    } finally {
      await live.close();
      await upstream.close();
    }
  });
});
