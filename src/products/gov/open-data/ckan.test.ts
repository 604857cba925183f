// The CKAN adapter on recordings of the portals' documented shapes: language rule, multilingual objects,
// organisation titles as objects, JSON strings or "English | Français", data licences passed through (e-Gov:
// from the resources when the package has none).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import type { RecordingFile } from "../../../upstream/recordings.ts";
import { type CkanPackage, normaliseCkanDetail, normaliseCkanPackage } from "./adapters/ckan.ts";
import { OPEN_DATA_RECORDINGS_DIR } from "./index.ts";
import { OPEN_DATA_PORTALS } from "./portals.ts";

function recorded<T>(name: string): T {
  const file = JSON.parse(
    fs.readFileSync(path.join(OPEN_DATA_RECORDINGS_DIR, `${name}.recording.json`), "utf8"),
  ) as RecordingFile;
  return (JSON.parse(file.response.body ?? "") as { result: T }).result;
}
const results = (name: string) => recorded<{ results: CkanPackage[] }>(name).results;
const portal = (cc: string) => {
  const entry = OPEN_DATA_PORTALS.find((p) => p.portal.cc === cc);
  if (!entry) throw new Error(cc);
  return entry.portal;
};
const page = { datasetPage: (pkg: CkanPackage) => `https://portal.test/dataset/${pkg.name}` };

describe("CKAN packages", () => {
  it("opendata.swiss: German title first, organisation title decoded from its JSON string", () => {
    const [pkg] = results("ch-search-luftqualitaet");
    const item = normaliseCkanPackage(pkg as CkanPackage, portal("ch"), page);
    assert.equal(item.title, "Luftqualität Messwerte (Beispiel)");
    assert.equal(item.organization, "Bundesamt für Umwelt (Beispiel)");
    assert.equal(item.dataLicence, null, "an empty license_id is no licence");
    assert.equal(typeof item.title, "string");
  });

  it("opendata.swiss detail: keywords and resource names from per-language objects, never objects", () => {
    const detail = normaliseCkanDetail(recorded<CkanPackage>("ch-show-luftqualitaet"), portal("ch"), page);
    assert.equal(detail.organization, "Bundesamt für Umwelt (Beispiel)");
    assert.equal(detail.description, "Stündliche Messwerte (Beispiel).");
    assert.deepEqual(detail.keywords, ["air", "environnement"], "the first language that has keywords");
    assert.deepEqual(
      detail.resources.map((r) => r.name),
      ["Messwerte CSV", "API"],
    );
  });

  it("open.canada.ca: both titles, the package id and slug, the English half of the organisation", () => {
    const [pkg] = results("ca-search-wildfire");
    const item = normaliseCkanPackage(pkg as CkanPackage, portal("ca"), {
      ...page,
      packageFields: "bilingual",
    });
    assert.equal(item.title, "Sample Wildfire Perimeters");
    assert.equal(item.titleEn, "Sample Wildfire Perimeters");
    assert.equal(item.titleFr, "Périmètres d'incendies de forêt (échantillon)");
    assert.equal(item.packageId, "9c1e2f3a-4b5c-4d6e-8f70-a1b2c3d4e5f6");
    assert.equal(item.name, "9c1e2f3a-4b5c-4d6e-8f70-a1b2c3d4e5f6");
    assert.equal(item.organization, "Natural Resources Canada");
    assert.equal(item.dataLicence?.id, "ca-ogl-lgo");
  });

  it("GovData: package id and slug, a timestamp without zone read as UTC", () => {
    const [pkg] = results("de-search-luftqualitaet");
    const item = normaliseCkanPackage(pkg as CkanPackage, portal("de"), { ...page, packageFields: "slug" });
    assert.equal(item.packageId, "b7c8d9e0-f1a2-4b3c-9d4e-5f6a7b8c9d0e");
    assert.equal(item.name, "luftqualitat-messstationen-beispiel");
    assert.equal(item.modified, "2025-08-21T12:00:00.000Z");
    assert.equal(item.dataLicence?.title, "Datenlizenz Deutschland – Namensnennung – Version 2.0");
  });

  it("data.gov.au: no organisation and no licence are null, resources counted", () => {
    const [first, second] = results("au-search-bushfire");
    const a = normaliseCkanPackage(first as CkanPackage, portal("au"), page);
    assert.equal(a.modified, "2025-11-02T08:12:45.123Z");
    assert.equal(a.resourceCount, 3);
    const b = normaliseCkanPackage(second as CkanPackage, portal("au"), page);
    assert.equal(b.organization, null);
    assert.equal(b.dataLicence, null);
  });

  it("e-Gov: the Japanese title; no licence on the package, so the one its resources agree on", () => {
    const [pkg] = results("jp-search-jinko");
    const item = normaliseCkanPackage(pkg as CkanPackage, portal("jp"), page);
    assert.equal(item.title, "人口推計（サンプル）");
    assert.equal(item.organization, "総務省");
    assert.equal(item.sourceUrl, "https://portal.test/dataset/soumu_20250101_0001");
    assert.deepEqual(item.dataLicence, {
      id: "CC-BY-4.0",
      title: null,
      url: "https://www.digital.go.jp/resources/open_data/public_data_license_v1.0",
    });
  });

  it("e-Gov: no organisation object: the package's publisher text; resources disagreeing: each listed", () => {
    const [, pkg] = results("jp-search-jinko");
    const item = normaliseCkanPackage(pkg as CkanPackage, portal("jp"), page);
    assert.equal(item.organization, "国土交通省");
    assert.deepEqual(item.dataLicence, {
      id: null,
      title: "varies by resource: CC-BY-4.0, PDL-1.0",
      url: null,
    });
  });

  it("a package's own licence wins over its resources'", () => {
    const pkg: CkanPackage = {
      id: "x",
      license_id: "cc-by",
      license_title: "Creative Commons Attribution",
      resources: [{ license_id: "PDL-1.0" }],
    };
    assert.equal(normaliseCkanPackage(pkg, portal("jp"), page).dataLicence?.id, "cc-by");
  });
});
