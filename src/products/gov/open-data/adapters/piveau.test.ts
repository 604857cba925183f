// piveau hub-search (data.gv.at, data.europa.eu) on recordings of its documented shapes: language maps turned
// into strings by the portal's language rule, distributions counted, licences passed through; the routes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { normalisePiveauDataset, normalisePiveauDetail, type PiveauDataset } from "./piveau.ts";
import {
  Answer,
  field,
  openRoute,
  portalOf,
  type RouteHarness,
  recorded,
} from "./route-harness.test-helper.ts";

const page = { datasetPage: (id: string) => `https://portal.test/datasets/${id}` };
const hits = (name: string) => recorded<{ result: { results: PiveauDataset[] } }>(name).result.results;

describe("piveau datasets", () => {
  it("data.gv.at: the German title, the publisher, distributions counted, the licence reference", () => {
    const [first, second] = hits("at-search-luftguete");
    const item = normalisePiveauDataset(first as PiveauDataset, portalOf("at"), page);
    assert.equal(item.title, "Luftgüte-Messwerte Wien (Beispiel)");
    assert.equal(item.organization, "Stadt Wien – Umweltschutz (Beispiel)");
    assert.equal(item.modified, "2025-10-14T06:30:00.000Z");
    assert.equal(item.resourceCount, 2);
    assert.deepEqual(item.dataLicence, {
      id: "CC-BY-4.0",
      title: "Creative Commons Namensnennung 4.0 International",
      url: "http://publications.europa.eu/resource/authority/licence/CC_BY_4_0",
    });
    const english = normalisePiveauDataset(second as PiveauDataset, portalOf("at"), page);
    assert.equal(english.title, "Air quality index Styria (sample)", "English when there is no German");
    assert.equal(
      english.organization,
      "Land Steiermark (Beispiel)",
      "the catalogue when there is no publisher",
    );
    assert.equal(english.modified, "2024-03-01T00:00:00.000Z");
    assert.equal(english.dataLicence, null);
  });

  it("data.europa.eu: English first over the record's own language; a missing date is null", () => {
    const [first, second] = hits("eu-search-air-quality");
    const item = normalisePiveauDataset(first as PiveauDataset, portalOf("eu"), page);
    assert.equal(item.title, "Air Quality Monitoring (sample)");
    assert.equal(item.dataLicence?.id, "CC0");
    const french = normalisePiveauDataset(second as PiveauDataset, portalOf("eu"), page);
    assert.equal(french.title, "Qualité de l'air (exemple)", "the only language there is");
    assert.equal(french.organization, "data.gouv.fr");
    assert.equal(french.modified, null);
  });

  it("the hub-search OpenAPI's older names: licence, download_urls, modification_date, format title", () => {
    const older = {
      id: "older",
      title: { de: "Älteres Schema" },
      modification_date: "2020-02-02T10:00:00Z",
      distributions: [
        {
          format: { id: "XLSX", title: "Excel" },
          licence: {
            id: "CC-BY-3.0-AT",
            title: "CC BY 3.0 AT",
            resource: "https://creativecommons.org/licenses/by/3.0/at/",
          },
          download_urls: ["https://example.invalid/a.xlsx"],
          access_url: "https://example.invalid/a",
        },
      ],
    } as PiveauDataset;
    const detail = normalisePiveauDetail(older, portalOf("at"), page);
    assert.equal(detail.modified, "2020-02-02T10:00:00.000Z");
    assert.deepEqual(detail.dataLicence, {
      id: "CC-BY-3.0-AT",
      title: "CC BY 3.0 AT",
      url: "https://creativecommons.org/licenses/by/3.0/at/",
    });
    assert.deepEqual(detail.resources, [
      { name: null, format: "XLSX", url: "https://example.invalid/a.xlsx" },
    ]);
  });

  it("one dataset: description, keywords in the portal's language first, download URL before access URL", () => {
    const dataset = recorded<{ result: PiveauDataset }>("at-show-luftguete").result;
    const detail = normalisePiveauDetail(dataset, portalOf("at"), page);
    assert.equal(detail.description, "Halbstündliche Messwerte (Beispiel).");
    assert.deepEqual(detail.keywords, ["Luft", "air"]);
    assert.deepEqual(detail.resources, [
      { name: "Messwerte CSV", format: "CSV", url: "https://example.invalid/luftguete.csv" },
    ]);
  });
});

describe("/v1/gov/at/open-data and /v1/gov/eu/open-data (replayed)", () => {
  let at: RouteHarness;
  let eu: RouteHarness;
  before(async () => {
    at = await openRoute("at");
    eu = await openRoute("eu");
  });
  after(async () => {
    await at.close();
    await eu.close();
  });

  it("the free samples answer offline, with totals, the metadata licence and the sample notice", async () => {
    const austria = await at.call(at.route.sample as Record<string, string>);
    assert.equal(austria.status, 200);
    const a = Answer.parse(austria.body);
    assert.deepEqual([a.query, a.count, a.totalCount, a.match], ["Luftgüte", 2, 37, true]);
    assert.equal(
      a.items?.[0]?.sourceUrl,
      "https://www.data.gv.at/datasets/a1b2c3d4-0000-4000-8000-luftguete001?locale=de",
    );
    assert.match(a.licence.name, /CC BY 4\.0/);
    assert.match(a.licence.notice ?? "", /RECORDED SAMPLE, NOT LIVE DATA/);
    const europe = Answer.parse((await eu.call(eu.route.sample as Record<string, string>)).body);
    assert.equal(europe.totalCount, 15210);
    assert.match(europe.licence.name, /CC0/);
    assert.equal(
      europe.source,
      "https://data.europa.eu/api/hub/search/search?q=air+quality&filter=dataset&limit=20&page=0",
    );
  });

  it("no hits: 200 match:false with a message; a maintenance page: 503 not charged", async () => {
    const none = Answer.parse((await at.call({ q: "qqqzzzxxy" })).body);
    assert.deepEqual([none.match, none.count, none.totalCount], [false, 0, 0]);
    assert.match(none.message ?? "", /No dataset on data\.gv\.at/);
    const down = await at.call({ q: "Wartung" });
    assert.equal(down.status, 503);
    assert.equal(field(down, "charged"), false);
  });

  it("one dataset: 404 not cached and queued, then served; an unknown id is 404 not_found", async () => {
    const id = "a1b2c3d4-0000-4000-8000-luftguete001";
    const miss = await at.call({ id });
    assert.deepEqual([miss.status, field(miss, "error")], [404, "not_cached"]);
    await at.fetchDataset(id);
    const hit = await at.call({ id });
    assert.equal(hit.status, 200);
    const body = Answer.parse(hit.body);
    assert.deepEqual(
      [body.found, body.title, body.resourceCount],
      [true, "Luftgüte-Messwerte Wien (Beispiel)", 1],
    );
    assert.equal(body.source, `https://www.data.gv.at/api/hub/search/datasets/${id}`);

    await eu.call({ id: "no-such-dataset" });
    await eu.fetchDataset("no-such-dataset");
    const gone = await eu.call({ id: "no-such-dataset" });
    assert.deepEqual([gone.status, field(gone, "error")], [404, "not_found"]);
  });
});
