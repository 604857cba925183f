import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import {
  choicesOf,
  citationOf,
  newItemIds,
  normaliseActContents,
  normaliseSearchFeed,
  parseGbId,
  rankByTitleMatch,
  titleMatchRank,
} from "./normalise.ts";

const body = recordedBody;
const TODAY = new Date("2026-11-25T00:00:00Z");

describe("gb normalise", () => {
  it("parses ids in their forms and refuses other shapes", () => {
    assert.deepEqual(parseGbId("ukpga/2018/12"), { id: "ukpga/2018/12" });
    assert.deepEqual(parseGbId("UKPGA/2018/012"), { id: "ukpga/2018/12" });
    assert.deepEqual(parseGbId("https://www.legislation.gov.uk/id/uksi/2012/632"), { id: "uksi/2012/632" });
    assert.deepEqual(parseGbId("http://www.legislation.gov.uk/ukpga/2018/12/contents/enacted"), {
      id: "ukpga/2018/12",
    });
    for (const bad of [
      "ukpga/18/12",
      "xx/2018/12",
      "ukpga/2018",
      "2018 c. 12",
      "ukpga/2018/12a",
      "ukpga/Geo5/1",
    ]) {
      assert.ok("error" in parseGbId(bad), bad);
    }
  });

  it("accepts pre-1963 regnal-year ids, spelled as legislation.gov.uk spells them", () => {
    assert.deepEqual(parseGbId("ukpga/Geo5/4-5/1"), { id: "ukpga/Geo5/4-5/1" });
    assert.deepEqual(parseGbId("UKLA/vict/44-45/12"), { id: "ukla/Vict/44-45/12" });
    assert.deepEqual(parseGbId("http://www.legislation.gov.uk/id/ukpga/Will4and1Vict/7/73"), {
      id: "ukpga/Will4and1Vict/7/73",
    });
    assert.deepEqual(parseGbId("https://www.legislation.gov.uk/ukpga/Geo6/10-11/47/contents"), {
      id: "ukpga/Geo6/10-11/47",
    });
    assert.equal(citationOf("ukpga/Geo5/4-5/1"), null);
  });

  it("a real feed: the total from its type facets (896), not openSearch:totalResults (the page's 20)", () => {
    const feed = normaliseSearchFeed(body("gb-search-construction"));
    assert.equal(feed.totalCount, 896);
    assert.equal(feed.items.length, 20);
    const bilingual = feed.items.find((i) => i.id === "eur/2018/773");
    assert.match(
      bilingual?.title ?? "",
      /^Commission Implementing Regulation \(EU\) 2018\/773 of 15 May 2018/,
    );
    assert.equal(
      feed.items.find((i) => i.id === "eur/2018/830")?.title.startsWith("Commission Delegated"),
      true,
    );
  });

  it("a feed without facets is counted only when it is its one page; otherwise the total is unknown", () => {
    const onePage = body("gb-search-data-protection");
    assert.equal(normaliseSearchFeed(onePage).totalCount, 2);
    const laterPages = onePage.replace(
      "<leg:morePages>0</leg:morePages>",
      "<leg:morePages>3</leg:morePages>",
    );
    assert.equal(normaliseSearchFeed(laterPages).totalCount, null);
  });

  it("ranks hits by title match, Acts before instruments, not by the feed's modification date", () => {
    assert.deepEqual(
      [
        "Data Protection Act 2018",
        "Data Protection",
        "The Data Protection (Charges) Regulations",
        "Rules on data protection",
        "Protection of data",
      ].map((t) => titleMatchRank(t, "data protection")),
      [1, 0, 1, 2, 3],
    );
    const item = (id: string, title: string, type: string) => ({
      id,
      title,
      type,
      citation: null,
      inForce: null,
      status: null,
      dates: {},
      sourceUrl: `https://www.legislation.gov.uk/${id}`,
      eli: null,
      description: null,
      year: 2018,
    });
    const ranked = rankByTitleMatch(
      [
        item(
          "uksi/2018/490",
          "The Data Protection (Charges and Information) Regulations 2018",
          "UnitedKingdomStatutoryInstrument",
        ),
        item(
          "uksi/2018/625",
          "The Data Protection Act 2018 (Commencement No. 1) Regulations 2018",
          "UnitedKingdomStatutoryInstrument",
        ),
        item("ukpga/2018/12", "Data Protection Act 2018", "UnitedKingdomPublicGeneralAct"),
      ],
      "data protection",
    );
    assert.deepEqual(
      ranked.map((i) => i.id),
      ["ukpga/2018/12", "uksi/2018/490", "uksi/2018/625"],
    );
  });

  it("a 300 Multiple Choices answer lists the acts the id may mean", () => {
    assert.deepEqual(choicesOf(body("gb-act-ukpga-1914-1-ambiguous")), [
      { id: "ukpga/Geo5/4-5/1", title: "Consolidated Fund (No. 1) Act 1914" },
      { id: "ukpga/Geo5/5-6/1", title: "Anglo-Portuguese Commercial Treaty Act 1914" },
    ]);
    const chrome =
      '<a href="/help">Help</a> <a href="/ukpga">UK Public General Acts</a> <a href="/new">New</a>';
    assert.deepEqual(choicesOf(chrome), [], "the page's navigation links are no choices");
  });

  it("a search feed gives its entries with ids, citations and the feed's total", () => {
    const search = normaliseSearchFeed(body("gb-search-data-protection"));
    assert.equal(search.totalCount, 2);
    assert.deepEqual(
      search.items.map((i) => [i.id, i.citation, i.year, i.dates.adopted, i.inForce]),
      [
        ["ukpga/2018/12", "2018 c. 12", 2018, "2018-05-23", null],
        ["ukpga/1998/29", "1998 c. 29", 1998, "1998-07-16", null],
      ],
    );
    assert.equal(search.items[0]?.type, "UnitedKingdomPublicGeneralAct");
    assert.equal(search.items[0]?.sourceUrl, "https://www.legislation.gov.uk/ukpga/2018/12");
    assert.deepEqual(normaliseSearchFeed(body("gb-search-no-hits")), { totalCount: 0, items: [] });
  });

  it("a maintenance page served with 200 is an error, not an empty result", () => {
    assert.throws(() => normaliseSearchFeed(body("gb-search-maintenance")), /not an Atom feed/);
    assert.throws(
      () => normaliseActContents(body("gb-search-maintenance"), "https://x.test/"),
      /no <Legislation>/,
    );
  });

  it("a revised act in force: inForce null (not asserted), extent and dates as given", () => {
    const act = normaliseActContents(body("gb-act-ukpga-2018-12"), "https://api.test/a", TODAY);
    assert.deepEqual(
      [act.id, act.title, act.citation, act.inForce, act.status, act.extent, act.year],
      ["ukpga/2018/12", "Data Protection Act 2018", "2018 c. 12", null, "revised", "E+W+S+N.I.", 2018],
    );
    assert.deepEqual(act.dates, {
      adopted: "2018-05-23",
      validFrom: "2018-05-25",
      validAt: "2025-06-19",
      updated: "2025-06-19",
    });
    assert.match(act.description ?? "", /^An Act to make provision for the regulation/);
    assert.match(act.inForceNote, /Not marked repealed; in the revised text from 2018-05-25/);
  });

  it("real CLML of a revised instrument: made, coming into force, validity and extent as captured", () => {
    const act = normaliseActContents(body("gb-act-uksi-2012-632"), "https://api.test/a", TODAY);
    assert.deepEqual(
      [act.id, act.type, act.citation, act.inForce, act.status, act.extent, act.year],
      [
        "uksi/2012/632",
        "UnitedKingdomStatutoryInstrument",
        "S.I. 2012/632",
        null,
        "revised",
        "E+W+S+N.I.",
        2012,
      ],
    );
    assert.deepEqual(act.dates, {
      adopted: "2012-02-27",
      entryIntoForce: "2012-04-06",
      validFrom: "2020-12-31",
      validAt: "2020-12-31",
      updated: "2022-05-05",
    });
  });

  it("a repealed act: inForce false with its repeal date", () => {
    const act = normaliseActContents(body("gb-act-ukpga-1998-29"), "https://api.test/a", TODAY);
    assert.deepEqual([act.inForce, act.status, act.dates.repealed], [false, "Repealed", "2018-05-25"]);
    assert.match(act.inForceNote, /repealed \(ceased 2018-05-25\)/);
  });

  it("a prospective Scottish act: inForce stays null, extent S", () => {
    const act = normaliseActContents(body("gb-act-asp-2024-99"), "https://api.test/a", TODAY);
    assert.deepEqual(
      [act.inForce, act.status, act.extent, act.citation, act.type],
      [null, "Prospective", "S", "2024 asp 99", "ScottishAct"],
    );
    assert.match(act.inForceNote, /prospective/);
  });

  it("the new-items feed lists the new acts' ids", () => {
    assert.deepEqual(newItemIds(body("gb-new-items")), ["ukpga/2018/12", "asp/2024/99"]);
    assert.equal(citationOf("uksi/2012/632"), "S.I. 2012/632");
  });
});
