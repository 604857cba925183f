// udata (data.gouv.fr) on recordings of its documented shapes: an organisation or a user as publisher, the
// data licence id with its name, resources counted; the route.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Answer,
  field,
  openRoute,
  portalOf,
  type RouteHarness,
  recorded,
} from "./route-harness.test-helper.ts";
import { normaliseUdataDataset, normaliseUdataDetail, type UdataDataset } from "./udata.ts";

const data = (name: string) => recorded<{ data: UdataDataset[] }>(name).data;

describe("udata datasets", () => {
  it("an organisation's dataset: its name, the ODbL passed through with its title, resources counted", () => {
    const [first] = data("fr-search-qualite-air");
    const item = normaliseUdataDataset(first as UdataDataset, portalOf("fr"));
    assert.equal(item.title, "Qualité de l'air mesurée (exemple)");
    assert.equal(item.organization, "Fédération Atmo France (exemple)");
    assert.equal(item.modified, "2025-11-03T08:15:00.000Z");
    assert.equal(item.resourceCount, 2);
    assert.equal(item.sourceUrl, "https://www.data.gouv.fr/fr/datasets/qualite-de-lair-mesuree-exemple/");
    assert.deepEqual(item.dataLicence, {
      id: "odc-odbl",
      title: "Open Data Commons Open Database License (ODbL)",
      url: "https://opendatacommons.org/licenses/odbl/",
    });
  });

  it("a user's dataset (organization null): the owner's name; an unknown licence id kept as given", () => {
    const [, second] = data("fr-search-qualite-air");
    const item = normaliseUdataDataset(second as UdataDataset, portalOf("fr"));
    assert.equal(item.organization, "Camille Exemple");
    assert.deepEqual(item.dataLicence, { id: "notspecified", title: null, url: null });
    assert.equal(item.resourceCount, 0);
  });

  it("a resource summary instead of a list still counts; the detail lists tags and resources", () => {
    const summary = normaliseUdataDataset({ id: "x", title: "T", resources: { total: 7 } }, portalOf("fr"));
    assert.equal(summary.resourceCount, 7);
    const detail = normaliseUdataDetail(recorded<UdataDataset>("fr-show-qualite-air"), portalOf("fr"));
    assert.equal(detail.description, "Mesures horaires (exemple).");
    assert.deepEqual(detail.keywords, ["air", "pollution"]);
    assert.deepEqual(detail.resources[0], {
      name: "mesures.csv",
      format: "csv",
      url: "https://example.invalid/mesures.csv",
    });
  });
});

describe("/v1/gov/fr/open-data (replayed)", () => {
  let fr: RouteHarness;
  before(async () => {
    fr = await openRoute("fr");
  });
  after(() => fr.close());

  it("the free sample answers offline with the total and Licence Ouverte 2.0", async () => {
    const outcome = await fr.call(fr.route.sample as Record<string, string>);
    assert.equal(outcome.status, 200);
    const body = Answer.parse(outcome.body);
    assert.deepEqual([body.query, body.count, body.totalCount], ["qualité de l'air", 2, 412]);
    assert.equal(body.licence.name, "Licence Ouverte / Open Licence 2.0 (Etalab)");
    assert.match(body.licence.notice ?? "", /RECORDED SAMPLE/);
  });

  it("no hits is 200 match:false; a 502 gateway page is 503 not charged", async () => {
    const none = Answer.parse((await fr.call({ q: "qqqzzzxxy" })).body);
    assert.deepEqual([none.match, none.totalCount], [false, 0]);
    const down = await fr.call({ q: "panne" });
    assert.deepEqual([down.status, field(down, "charged")], [503, false]);
  });

  it("one dataset after its job; an unknown id is not_found", async () => {
    const id = "5b7ffc618b4c4169d30727e0";
    assert.equal((await fr.call({ id })).status, 404);
    await fr.fetchDataset(id);
    const body = Answer.parse((await fr.call({ id })).body);
    assert.deepEqual(
      [body.found, body.organization, body.dataLicence?.id],
      [true, "Fédération Atmo France (exemple)", "odc-odbl"],
    );
    await fr.fetchDataset("no-such-dataset");
    assert.equal(field(await fr.call({ id: "no-such-dataset" }), "error"), "not_found");
  });
});
