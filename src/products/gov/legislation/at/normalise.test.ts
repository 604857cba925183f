import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import {
  actInForce,
  actNotInForce,
  eliOf,
  groupSearch,
  list,
  parseAtId,
  parseRisPage,
  text,
} from "./normalise.ts";

const json = (name: string) => JSON.parse(recordedBody(name)) as unknown;
const NOW = new Date("2026-11-25T00:00:00Z");

describe("at normalise", () => {
  it("parses a Gesetzesnummer, also from a RIS URL, and refuses other shapes", () => {
    assert.deepEqual(parseAtId("10002531"), { id: "10002531" });
    assert.deepEqual(
      parseAtId("https://www.ris.bka.gv.at/GeltendeFassung.wxe?Abfrage=Bundesnormen&Gesetzesnummer=10001622"),
      { id: "10001622" },
    );
    for (const bad of ["1000253", "100025311", "MRG", "NOR40238671"])
      assert.ok("error" in parseAtId(bad), bad);
  });

  it("reads the XML-to-JSON quirks: single objects, wrapped items and #text", () => {
    assert.deepEqual(list({ a: 1 }), [{ a: 1 }]);
    assert.deepEqual(list(undefined), []);
    assert.equal(text({ item: "10002531" }), "10002531");
    assert.equal(text({ item: ["a", "b"] }), "a, b");
    assert.equal(text({ "#text": " 42 " }), "42");
  });

  it("groups a title search's provisions into acts, Gesetzesnummer wrapped or not", () => {
    const page = parseRisPage(json("at-search-mietrechtsgesetz"));
    assert.equal(page.hits, 3);
    const items = groupSearch(page);
    assert.deepEqual(
      items.map((i) => [i.id, i.abbreviation, i.inForce]),
      [
        ["10002531", "MRG", true],
        ["10002540", "RichtWG", true],
      ],
    );
    const mrg = items[0];
    assert.equal(mrg?.shortTitle, "Mietrechtsgesetz");
    assert.equal(mrg?.publishedIn, "BGBl. Nr. 520/1981");
    assert.equal(mrg?.citation, "Mietrechtsgesetz, BGBl. Nr. 520/1981");
    assert.equal(mrg?.eli, "https://www.ris.bka.gv.at/eli/bgbl/1981/520");
    assert.deepEqual(mrg?.dates, { versionInForceFrom: "2018-06-01" });
  });

  it("a single hit comes as an object, not an array, and is still one act", () => {
    const items = groupSearch(parseRisPage(json("at-search-aerztegesetz")));
    assert.deepEqual(
      items.map((i) => [i.id, i.shortTitle, i.eli]),
      [["10011138", "Ärztegesetz 1998", "https://www.ris.bka.gv.at/eli/bgbl/I/1998/169"]],
    );
  });

  it("no hits, a RIS error message and a maintenance page", () => {
    assert.deepEqual(parseRisPage(json("at-search-no-hits")), { hits: 0, provisions: [] });
    assert.throws(
      () => parseRisPage(json("at-search-grammar-error")),
      /RIS refused the search: Die Suchanfrage/,
    );
    assert.throws(() => parseRisPage("<html>"), /no OgdSearchResult/);
  });

  it("an act in force and a repealed act", () => {
    const current = actInForce(
      "10002531",
      parseRisPage(json("at-act-10002531")).provisions,
      "https://api.test/1",
    );
    assert.deepEqual(
      [current.inForce, current.title.startsWith("Bundesgesetz vom 12. November 1981")],
      [true, true],
    );
    assert.equal(
      current.sourceUrl,
      "https://www.ris.bka.gv.at/GeltendeFassung.wxe?Abfrage=Bundesnormen&Gesetzesnummer=10002531",
    );
    const repealed = actNotInForce(
      "10009999",
      parseRisPage(json("at-act-10009999-history")).provisions,
      "https://api.test/2",
      NOW,
    );
    assert.deepEqual(
      [repealed.inForce, repealed.status, repealed.dates],
      [false, "repealed (außer Kraft)", { repealed: "2019-12-31" }],
    );
    assert.equal(eliOf("BGBl. II Nr. 5/2020"), "https://www.ris.bka.gv.at/eli/bgbl/II/2020/5");
    assert.equal(eliOf("RGBl. Nr. 946/1811"), null);
  });
});
