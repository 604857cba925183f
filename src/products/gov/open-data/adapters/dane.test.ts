// dane.gov.pl (JSON:API) on recordings of its documented shapes: the sideloaded institution, the resource
// count from the relationship, each dataset's licence; the route, with a Polish query with diacritics.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type DaneDataset,
  type DaneIncluded,
  type DaneResource,
  normaliseDaneDataset,
  normaliseDaneDetail,
} from "./dane.ts";
import {
  Answer,
  field,
  openRoute,
  portalOf,
  type RouteHarness,
  recorded,
} from "./route-harness.test-helper.ts";

describe("dane.gov.pl datasets", () => {
  const page = recorded<{ data: DaneDataset[]; included: DaneIncluded[] }>("pl-search-jakosc-powietrza");

  it("the institution from `included`, resources from the relationship's count, the licence name", () => {
    const item = normaliseDaneDataset(page.data[0] as DaneDataset, page.included, portalOf("pl"));
    assert.equal(item.id, "1667");
    assert.equal(item.title, "Jakość powietrza – pomiary godzinowe (przykład)");
    assert.equal(item.organization, "Główny Inspektorat Ochrony Środowiska (przykład)");
    assert.equal(item.resourceCount, 3);
    assert.equal(
      item.sourceUrl,
      "https://dane.gov.pl/pl/dataset/1667,jakosc-powietrza-pomiary-godzinowe-przyklad",
    );
    assert.deepEqual(item.dataLicence, { id: null, title: "CC BY 4.0", url: null });
  });

  it("an institution not sideloaded and no licence are null, never an id or an object", () => {
    const item = normaliseDaneDataset(page.data[1] as DaneDataset, page.included, portalOf("pl"));
    assert.equal(item.organization, null);
    assert.equal(item.dataLicence, null);
    assert.equal(item.resourceCount, 0);
  });

  it("the detail: notes, keywords and the related resources (file URL, else link)", () => {
    const show = recorded<{ data: DaneDataset; included: DaneIncluded[] }>("pl-show-1667");
    const resources = recorded<{ data: DaneResource[] }>("pl-resources-1667").data;
    const detail = normaliseDaneDetail(show.data, show.included, resources, portalOf("pl"));
    assert.equal(detail.description, "Wyniki pomiarów stężeń zanieczyszczeń (przykład).");
    assert.deepEqual(detail.keywords, ["powietrze", "smog"]);
    assert.deepEqual(
      detail.resources.map((r) => [r.format, r.url]),
      [
        ["csv", "https://example.invalid/pomiary-2025.csv"],
        [null, "https://example.invalid/api"],
      ],
    );
  });
});

describe("/v1/gov/pl/open-data (replayed)", () => {
  let pl: RouteHarness;
  before(async () => {
    pl = await openRoute("pl");
  });
  after(() => pl.close());

  it("the free sample (a query with Polish diacritics) answers offline with meta.count as the total", async () => {
    const outcome = await pl.call(pl.route.sample as Record<string, string>);
    assert.equal(outcome.status, 200);
    const body = Answer.parse(outcome.body);
    assert.deepEqual([body.query, body.count, body.totalCount], ["jakość powietrza", 2, 58]);
    assert.match(body.source, /include=institution/);
    assert.match(body.licence.name, /Open Data Act/);
  });

  it("the same question in another case and spacing shares the hash and the cache entry", async () => {
    const a = Answer.parse((await pl.call({ q: "jakość powietrza" })).body);
    const b = Answer.parse((await pl.call({ q: "  JAKOŚĆ   Powietrza " })).body);
    assert.equal(a.hash, b.hash);
    assert.equal(a.fetchedAt, b.fetchedAt);
  });

  it("no hits is match:false; a JSON:API 500 is 503 not charged", async () => {
    assert.equal(Answer.parse((await pl.call({ q: "qqqzzzxxy" })).body).match, false);
    const down = await pl.call({ q: "awaria" });
    assert.deepEqual([down.status, field(down, "charged")], [503, false]);
    assert.match(String(field(down, "message")), /Wystąpił błąd serwera/);
  });

  it("ids are dataset numbers: anything else is 400 naming id; a dataset is served after its job", async () => {
    const bad = await pl.call({ id: "jakosc-powietrza" });
    assert.deepEqual([bad.status, field(bad, "parameter")], [400, "id"]);
    assert.equal((await pl.call({ id: "1667" })).status, 404);
    await pl.fetchDataset("1667");
    const body = Answer.parse((await pl.call({ id: "1667" })).body);
    assert.deepEqual([body.found, body.resourceCount, body.resources?.length], [true, 3, 2]);
    await pl.fetchDataset("999999999");
    assert.equal(field(await pl.call({ id: "999999999" }), "error"), "not_found");
  });
});
