// NKOD (data.gov.cz) over SPARQL on recordings of the W3C SPARQL JSON results its endpoint answers: the
// folded title filter (Czech diacritics and case), rows into datasets by the language rule, the route.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  datasetIdOf,
  datasetIriOf,
  foldedPattern,
  NKOD_ID,
  normaliseNkodDetail,
  normaliseNkodRow,
  type SparqlRow,
  searchQuery,
} from "./nkod.ts";
import { Answer, field, openRoute, type RouteHarness, recorded } from "./route-harness.test-helper.ts";

type Results = { results: { bindings: SparqlRow[] } };
const rows = (name: string) => recorded<Results>(name).results.bindings;
const IRI = "https://data.gov.cz/zdroj/datové-sady/00007064/9c73b802263c5e0ccf5542f10fbc35bb";

describe("NKOD title filter", () => {
  it("every folded letter stands for its Czech variants in both cases", () => {
    assert.equal(foldedPattern("zivotni"), "[zžZŽ][iíIÍ][vV][oóOÓ][tťTŤ][nňNŇ][iíIÍ]");
    assert.equal(foldedPattern("2024"), "2024");
    const pattern = new RegExp(foldedPattern("prostredi"), "i");
    assert.ok(pattern.test("Stav životního PROSTŘEDÍ"));
    assert.ok(!pattern.test("prostor"));
  });

  it("a query with or without diacritics, in any case, asks the endpoint the same question", () => {
    assert.equal(searchQuery("životní prostředí"), searchQuery("ZIVOTNI  prostredi"));
    assert.match(
      searchQuery("Ovzduší 2024"),
      /REGEX\(STR\(\?matched\), "\[oóOÓ\]\[vV\]\[zžZŽ\]\[dďDĎ\]\[uúůUÚŮ\]\[sšSŠ\]\[iíIÍ\]", "i"\)/,
    );
    assert.match(searchQuery("Ovzduší 2024"), /"2024"/);
    assert.match(searchQuery("a b c d e f g h"), /LIMIT 20 \}/);
    assert.equal(searchQuery("a b c d e f g h").match(/REGEX/g)?.length, 6, "at most six words");
  });

  it("dataset ids are the IRI after …/datové-sady/, and back", () => {
    assert.equal(datasetIdOf(IRI), "00007064/9c73b802263c5e0ccf5542f10fbc35bb");
    assert.equal(datasetIriOf("00007064/9c73b802263c5e0ccf5542f10fbc35bb"), IRI);
    assert.ok(NKOD_ID.pattern.test("00007064/9c73b802263c5e0ccf5542f10fbc35bb"));
    assert.ok(NKOD_ID.pattern.test("MDopravy/katalog-mdcr/a86cec494eba42b5b8a35f0e7c8e4f92"));
    assert.ok(!NKOD_ID.pattern.test("../etc/passwd"));
    assert.ok(!NKOD_ID.pattern.test("00007064/x> } DROP"));
  });
});

describe("NKOD rows", () => {
  it("a search row: the Czech title, the publisher, distributions counted, the licence of a distribution", () => {
    const [first, second] = rows("cz-search-zivotni-prostredi");
    const item = normaliseNkodRow(first as SparqlRow);
    assert.equal(item.id, "00007064/9c73b802263c5e0ccf5542f10fbc35bb");
    assert.equal(item.title, "Stav životního prostředí v krajích (příklad)");
    assert.equal(item.organization, "Ministerstvo životního prostředí (příklad)");
    assert.equal(item.modified, "2025-06-30T00:00:00.000Z");
    assert.equal(item.resourceCount, 2);
    assert.equal(item.sourceUrl, `https://data.gov.cz/datov%C3%A1-sada?iri=${encodeURIComponent(IRI)}`);
    assert.deepEqual(item.dataLicence, {
      id: null,
      title: null,
      url: "https://creativecommons.org/licenses/by/4.0/",
    });
    const english = normaliseNkodRow(second as SparqlRow);
    assert.equal(english.title, "Environmental noise map (sample)", "English when there is no Czech title");
    assert.deepEqual([english.organization, english.modified, english.dataLicence], [null, null, null]);
    const noWorks = normaliseNkodRow({
      ...(first as SparqlRow),
      dataLicence: { type: "uri", value: "https://data.gov.cz/podmínky-užití/neobsahuje-autorská-díla/" },
    });
    assert.equal(noWorks.dataLicence?.title, "Does not contain works protected by copyright");
  });

  it("one dataset: Czech before English, Czech keywords, one resource per distribution", () => {
    const detail = normaliseNkodDetail(IRI, rows("cz-show-dataset"), rows("cz-show-distributions"));
    assert.equal(detail.title, "Stav životního prostředí v krajích (příklad)");
    assert.equal(detail.description, "Ukazatele stavu životního prostředí (příklad).");
    assert.deepEqual(detail.keywords, ["ovzduší"]);
    assert.equal(detail.organization, "Ministerstvo životního prostředí (příklad)");
    assert.equal(detail.resourceCount, 2);
    assert.deepEqual(detail.resources, [
      { name: "Data CSV", format: "CSV", url: "https://example.invalid/zp.csv" },
      { name: null, format: "JSON", url: "https://example.invalid/zp-api" },
    ]);
  });
});

describe("/v1/gov/cz/open-data (replayed)", () => {
  let cz: RouteHarness;
  before(async () => {
    cz = await openRoute("cz");
  });
  after(() => cz.close());

  it("the free sample (Czech with diacritics) answers offline; no total from SPARQL", async () => {
    const outcome = await cz.call(cz.route.sample as Record<string, string>);
    assert.equal(outcome.status, 200);
    const body = Answer.parse(outcome.body);
    assert.deepEqual(
      [body.query, body.count, body.totalCount, body.match],
      ["životní prostředí", 2, null, true],
    );
    assert.match(body.licence.name, /NKOD/);
    assert.match(body.source, /^https:\/\/data\.gov\.cz\/sparql\?query=/);
  });

  it("the folded question is the same question: same hash, answered from the same cache entry", async () => {
    const a = Answer.parse((await cz.call({ q: "životní prostředí" })).body);
    const b = Answer.parse((await cz.call({ q: "Zivotni Prostredi" })).body);
    assert.equal(a.hash, b.hash);
    assert.equal(b.items?.[0]?.title, "Stav životního prostředí v krajích (příklad)");
  });

  it("no hits is match:false; an endpoint timeout is 503 not charged", async () => {
    assert.equal(Answer.parse((await cz.call({ q: "qqqzzzxxy" })).body).match, false);
    const slow = await cz.call({ q: "data" });
    assert.deepEqual([slow.status, field(slow, "charged")], [503, false]);
  });

  it("one dataset after its job (two SPARQL queries); an IRI NKOD does not hold is not_found", async () => {
    const id = "00007064/9c73b802263c5e0ccf5542f10fbc35bb";
    assert.equal((await cz.call({ id })).status, 404);
    await cz.fetchDataset(id);
    const body = Answer.parse((await cz.call({ id })).body);
    assert.deepEqual([body.found, body.resources?.length, body.keywords], [true, 2, ["ovzduší"]]);
    await cz.fetchDataset("00000000/neexistuje");
    assert.equal(field(await cz.call({ id: "00000000/neexistuje" }), "error"), "not_found");
    const bad = await cz.call({ id: "x> } DROP" });
    assert.deepEqual([bad.status, field(bad, "parameter")], [400, "id"]);
  });
});
