// catalog.data.gov's Catalog API on the real documented example (a federal record), and where no public capture
// exists, the documented shapes: no total (null), the organisation or publisher, the licence statement by
// publisher type, the DCAT licence URL passed through; the documented keyed door when a key is set.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openFamilyContext, startLoopbackUpstream } from "../../../../../test/family-harness.ts";
import { loadConfig } from "../../../../config.ts";
import { govOpenDataFamily } from "../index.ts";
import {
  type DatagovResult,
  licenceNoteOf,
  normaliseDatagovDetail,
  normaliseDatagovResult,
} from "./datagov.ts";
import { Answer, field, openRoute, type RouteHarness, recorded } from "./route-harness.test-helper.ts";

const federal = recorded<{ results: DatagovResult[] }>("us-search-education").results[0] as DatagovResult;
const city = recorded<{ results: DatagovResult[] }>("us-search-bike-lanes").results[0] as DatagovResult;
const SLUG = "national-household-education-surveys-program-2005-adult-education-survey";

describe("catalog.data.gov results (real documented example)", () => {
  it("slug as id, organisation name, DCAT modified, distributions counted, licence URL", () => {
    const item = normaliseDatagovResult(federal);
    assert.equal(item.id, SLUG);
    assert.equal(item.organization, "Department of Education");
    assert.equal(item.modified, "2023-06-22T20:25:39.652Z");
    assert.equal(item.resourceCount, 1, "no distribution_titles: the DCAT distributions are counted");
    assert.equal(item.sourceUrl, `https://catalog.data.gov/dataset/${SLUG}`);
    assert.deepEqual(item.dataLicence, {
      id: null,
      title: null,
      url: "https://creativecommons.org/publicdomain/zero/1.0/",
    });
  });

  it("a federal agency's record is a US government work, with its own licence named", () => {
    const item = normaliseDatagovResult(federal);
    assert.equal(item.publisherType, "Federal Government");
    assert.match(item.licenceNote ?? "", /^Published by a federal agency: a US government work/);
    assert.match(item.licenceNote ?? "", /creativecommons\.org\/publicdomain\/zero/);
  });

  it("the detail lists the DCAT distributions, download URL first; keywords as given", () => {
    const detail = normaliseDatagovDetail(federal);
    assert.deepEqual(detail.resources, [
      { name: "ae05asc.zip", format: "Zipped DAT", url: "https://nces.ed.gov/nhes/data/ae05asc.zip" },
    ]);
    assert.deepEqual(detail.keywords.slice(1), [
      "adult-education",
      "continuing-education",
      "lifelong-learning",
    ]);
  });
});

describe("catalog.data.gov licence by publisher type", () => {
  it("a city's record without a licence is not a US government work and says it states none", () => {
    const item = normaliseDatagovResult(city);
    assert.deepEqual([item.publisherType, item.dataLicence], ["City Government", null]);
    assert.equal(
      item.licenceNote,
      "Published by a City Government publisher, not a federal agency: not a US government work, the publisher's terms apply; the record states no licence.",
    );
  });

  it("every non-federal type the catalog knows is never called a government work; unknown type says so", () => {
    for (const type of ["State Government", "County Government", "Tribal", "University", "Non-Profit"]) {
      assert.match(licenceNoteOf(type, null), /not a US government work/, type);
    }
    assert.match(
      licenceNoteOf(null, "https://x.test/l"),
      /type is not given.*not known.*https:\/\/x\.test\/l/,
    );
  });
});

describe("/v1/gov/us/open-data (replayed)", () => {
  let us: RouteHarness;
  before(async () => {
    us = await openRoute("us");
  });
  after(() => us.close());

  it("the free sample answers offline; no total (null); the portal licence does not call all records federal", async () => {
    const outcome = await us.call(us.route.sample as Record<string, string>);
    assert.equal(outcome.status, 200);
    const body = Answer.parse(outcome.body);
    assert.deepEqual([body.count, body.totalCount, body.match], [1, null, true]);
    assert.match(body.licence.name, /states, counties, cities, tribes, universities/);
    assert.equal(body.items?.[0]?.publisherType, "Federal Government");
    assert.match(
      body.source,
      /^https:\/\/catalog\.data\.gov\/search\?/,
      "keyless: the site backend answered",
    );
  });

  it("no hits: match:false with totalCount null", async () => {
    const none = Answer.parse((await us.call({ q: "qqqzzzxxy" })).body);
    assert.deepEqual([none.match, none.count, none.totalCount], [false, 0, null]);
  });

  it("a dataset by slug is found through the search; one the search does not return is not_found", async () => {
    assert.equal((await us.call({ id: SLUG })).status, 404);
    await us.fetchDataset(SLUG);
    const body = Answer.parse((await us.call({ id: SLUG })).body);
    assert.deepEqual(
      [body.found, body.title, body.publisherType],
      [
        true,
        "National Household Education Surveys Program, 2005 Adult Education Survey",
        "Federal Government",
      ],
    );
    await us.fetchDataset("qqqzzzxxy");
    assert.equal(field(await us.call({ id: "qqqzzzxxy" }), "error"), "not_found");
  });
});

describe("/v1/gov/us/open-data with an api.data.gov key (the documented v4 API)", () => {
  it("replayed: answers through api.gsa.gov; the route's upstream name says which door", async () => {
    const keyed = await openFamilyContext(govOpenDataFamily, { GOV_US_OPEN_DATA_API_KEY: "a-key" });
    try {
      const route = keyed.family.products.find((p) => p.path === "/v1/gov/us/open-data");
      assert.match(route?.summary ?? "", /v4 at api\.gsa\.gov, api\.data\.gov key/);
      const ask = async (q: string) => {
        const parsed = route?.query?.safeParse({ q });
        assert.ok(parsed?.success);
        return route?.handle({ query: parsed.data, body: undefined }, keyed);
      };
      const outcome = await ask("education");
      assert.equal(outcome?.status, 200);
      assert.match(
        String(field(outcome as { body: unknown }, "source")),
        /^https:\/\/api\.gsa\.gov\/technology\/datagov\/v4\/search\?/,
      );
      const refused = await ask("refused key");
      assert.deepEqual(
        [refused?.status, field(refused as { body: unknown }, "charged")],
        [503, false],
        "a key the gateway refuses is the operator's to fix: 503, not charged",
      );
      assert.match(String(field(refused as { body: unknown }, "message")), /API_KEY_INVALID/);
    } finally {
      await keyed.close();
    }
    const keyless = govOpenDataFamily(loadConfig({ LOG_LEVEL: "silent" }));
    const plain = keyless.products.find((p) => p.path === "/v1/gov/us/open-data");
    assert.match(plain?.summary ?? "", /keyless site backend/);
  });

  it("live: the key goes in X-Api-Key to the v4 base URL, never to the keyless backend", async () => {
    const seen: Array<{ path: string; key: string | undefined }> = [];
    const upstream = await startLoopbackUpstream((url, request) => {
      seen.push({ path: url.pathname, key: request.headers["x-api-key"] as string | undefined });
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ results: [] }),
      };
    });
    const live = await openFamilyContext(govOpenDataFamily, {
      UPSTREAMS: "live",
      GOV_US_OPEN_DATA_BASE_URL: "http://127.0.0.1:9",
      GOV_US_OPEN_DATA_API_BASE_URL: `${upstream.baseUrl}/technology/datagov/v4`,
      GOV_US_OPEN_DATA_API_KEY: "test-key",
    });
    try {
      const route = live.family.products.find((p) => p.path === "/v1/gov/us/open-data");
      const parsed = route?.query?.safeParse({ q: "water" });
      assert.ok(parsed?.success);
      const outcome = await route?.handle({ query: parsed.data, body: undefined }, live);
      assert.equal(outcome?.status, 200);
      assert.deepEqual(seen, [{ path: "/technology/datagov/v4/search", key: "test-key" }]);
    } finally {
      await live.close();
      await upstream.close();
    }
  });
});
