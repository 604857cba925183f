import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import { normaliseAct, normaliseSearch, parseAuId, searchWordsOf } from "./normalise.ts";
import { titleFilter } from "./upstream.ts";

const json = (name: string) => JSON.parse(recordedBody(name)) as unknown;

describe("au normalise", () => {
  it("parses register ids, also from a legislation.gov.au URL, and refuses other shapes", () => {
    assert.deepEqual(parseAuId("c2004a03712"), { id: "C2004A03712" });
    assert.deepEqual(parseAuId("https://www.legislation.gov.au/C2004A03712/latest/text"), {
      id: "C2004A03712",
    });
    assert.deepEqual(parseAuId("F2019L01091"), { id: "F2019L01091" });
    for (const bad of ["Privacy Act 1988", "C2004A3712", "2004A03712"])
      assert.ok("error" in parseAuId(bad), bad);
  });

  it("builds an OData filter with every word and quotes doubled", () => {
    assert.deepEqual(searchWordsOf("Privacy  (Credit) Act"), ["privacy", "credit", "act"]);
    assert.equal(
      titleFilter(["o'brien", "act"]),
      "contains(tolower(name),'o''brien') and contains(tolower(name),'act')",
    );
  });

  it("a search page: items with principal, the @odata.count, and the filter-dropping nextLink ignored", () => {
    const page = normaliseSearch(json("au-search-privacy"));
    assert.equal(page.totalCount, 2);
    assert.deepEqual(
      page.items.map((i) => [i.id, i.type, i.principal, i.citation, i.dates.adopted]),
      [
        ["C2004A03712", "Act", true, "No. 119, 1988", "1988-12-14"],
        ["C2012A00197", "Act", false, "No. 197, 2012", "2012-12-12"],
      ],
    );
    assert.deepEqual(normaliseSearch(json("au-search-no-hits")), { totalCount: 0, items: [] });
    assert.throws(() => normaliseSearch("<html>"), /no value array/);
  });

  it("an act in force and a repealed instrument with its repeal date", () => {
    const act = normaliseAct(json("au-act-C2004A03712"), "https://api.test/");
    assert.deepEqual(
      [act.title, act.inForce, act.status, act.principal, act.dates],
      [
        "Privacy Act 1988",
        true,
        "in force",
        true,
        { adopted: "1988-12-14", registered: "2004-12-21", entryIntoForce: "1989-01-01" },
      ],
    );
    assert.equal(act.sourceUrl, "https://www.legislation.gov.au/C2004A03712");
    const repealed = normaliseAct(json("au-act-F2019L01091"), "https://api.test/");
    assert.deepEqual(
      [repealed.inForce, repealed.status, repealed.citation, repealed.type, repealed.dates.repealed],
      [false, "repealed", "No. 89 of 2019", "LegislativeInstrument", "2019-11-15"],
    );
  });
});
