import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { USPTO_RECORDINGS_DIR } from "./index.ts";
import { cpcGroup, normaliseSearch, PatentShapeError } from "./normalise.ts";
import { normalisePatentNumber, PatentQuery } from "./query.ts";
import { errorDetail, isNoMatch, numberQuery, searchBody, titleQuery } from "./upstream.ts";

const recording = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(USPTO_RECORDINGS_DIR, `${name}.recording.json`), "utf8")) as {
    request: { query: { q: string } };
    response: { status: number; body: string };
  };
const recorded = (name: string) => recording(name).response.body;

describe("patent numbers and the q|patentNumber rule", () => {
  it("normalises the ways grant numbers are written", () => {
    const cases: Array<[string, string | undefined]> = [
      ["11646472", "11646472"],
      ["US 11,646,472 B2", "11646472"],
      ["us11646472b1", "11646472"],
      ["D987,654 S", "D987654"],
      ["PP34567", "PP34567"],
      ["RE49876E", "RE49876"],
      ["06000000", "6000000"],
      ["0", undefined],
      ["123456789", undefined],
      ["EP1234567", undefined],
      ["11646472X9", undefined],
      ["", undefined],
    ];
    for (const [raw, expected] of cases) assert.equal(normalisePatentNumber(raw), expected, raw);
  });

  it("exactly one of q or patentNumber", () => {
    assert.equal(PatentQuery.safeParse({}).error?.issues[0]?.path[0], "q");
    assert.equal(
      PatentQuery.safeParse({ q: "x", patentNumber: "1" }).error?.issues[0]?.path[0],
      "patentNumber",
    );
    assert.equal(PatentQuery.safeParse({ patentNumber: "EP1" }).error?.issues[0]?.path[0], "patentNumber");
    assert.equal(PatentQuery.safeParse({ q: "  " }).error?.issues[0]?.path[0], "q");
    assert.equal(PatentQuery.safeParse({ q: "a\u0000b" }).error?.issues[0]?.path[0], "q");
    assert.deepEqual(PatentQuery.parse({ q: "  lithium   battery " }), { q: "lithium battery" });
  });
});

describe("Open Data Portal requests", () => {
  it("a title search: every word quoted, no operator or field of the buyer's reaches the portal", () => {
    assert.equal(titleQuery("Lithium battery"), recording("search-lithium-battery").request.query.q);
    assert.equal(
      titleQuery('x OR applicationMetaData.patentNumber:* "a\\b'),
      'applicationMetaData.inventionTitle:"x" AND applicationMetaData.inventionTitle:"or" AND ' +
        'applicationMetaData.inventionTitle:"applicationmetadata" AND applicationMetaData.inventionTitle:"patentnumber" AND ' +
        'applicationMetaData.inventionTitle:"a" AND applicationMetaData.inventionTitle:"b"',
    );
  });

  it("a grant number; prefixed numbers are asked in both forms", () => {
    assert.equal(numberQuery("11646472"), recording("patent-11646472").request.query.q);
    assert.equal(
      numberQuery("D987654"),
      "applicationMetaData.patentNumber:D987654 OR applicationMetaData.patentNumber:987654",
    );
  });

  it("the search body: grants only by a grant-date range, newest first, the mapped fields, a page", () => {
    const body = searchBody({ q: "*:*", grantsOnly: { since: "2026-11-20" }, size: 100 });
    assert.deepEqual(body.rangeFilters, [
      {
        field: "applicationMetaData.grantDate",
        valueFrom: "2026-11-20",
        valueTo: new Date().toISOString().slice(0, 10),
      },
    ]);
    assert.deepEqual(body.sort, [{ field: "applicationMetaData.grantDate", order: "desc" }]);
    assert.deepEqual(body.pagination, { offset: 0, limit: 100 });
    assert.ok((body.fields as string[]).includes("applicationMetaData.cpcClassificationBag"));
    assert.equal("rangeFilters" in searchBody({ q: "x" }), false, "nothing sent empty");
    assert.equal("filters" in body, false);
  });
});

describe("Open Data Portal normaliser (recordings of real answers)", () => {
  it("one grant: numbers, dates, applicants, inventors counted, CPC compacted, earliest US filing", () => {
    const page = normaliseSearch(recorded("patent-11646472"));
    assert.equal(page.totalHits, 1);
    const patent = page.patents[0];
    assert.deepEqual(
      { ...patent, cpcGroups: patent?.cpcGroups.slice(0, 3) },
      {
        patentNumber: "11646472",
        applicationNumber: "17248024",
        title: "MAKING LITHIUM METAL - SEAWATER BATTERY CELLS HAVING PROTECTED LITHIUM ELECTRODES",
        abstract: null,
        type: "utility",
        grantDate: "2023-05-09",
        filingDate: "2021-01-05",
        earliestApplicationDate: "2004-02-06",
        assignees: ["PolyPlus Battery Company"],
        inventorsCount: 4,
        cpcGroups: ["H01M50/46", "H01G11/06", "H01M50/449"],
        cpcSubclasses: ["H01M", "H01G", "Y02E"],
        claimsCount: null,
      },
    );
    assert.equal(patent?.cpcGroups.length, 20);
    assert.ok(patent?.cpcGroups.includes("H01M2300/0085"));
  });

  it("a record without a grant number (a pending application) is skipped; missing lists are empty or null", () => {
    const page = normaliseSearch(recorded("recent-grants"));
    assert.equal(page.totalHits, 2);
    assert.deepEqual(
      page.patents.map((p) => [p.patentNumber, p.grantDate, p.inventorsCount, p.assignees, p.cpcGroups]),
      [["12735810", "2026-09-15", null, [], []]],
    );
  });

  it("design and plant numbers get their prefix back from the record's type", () => {
    const body = JSON.stringify({
      count: 1,
      patentFileWrapperDataBag: [
        { applicationMetaData: { patentNumber: "987654", applicationTypeLabelName: "Design" } },
        { applicationMetaData: { patentNumber: "D987655", applicationTypeLabelName: "Design" } },
      ],
    });
    assert.deepEqual(
      normaliseSearch(body).patents.map((p) => p.patentNumber),
      ["D987654", "D987655"],
    );
    assert.equal(cpcGroup("H01M  50/46"), "H01M50/46");
    assert.equal(cpcGroup("not a code"), null);
  });

  it("no match is the portal's 404 with detailedMessage; other errors and shapes are told apart", () => {
    const none = recording("search-no-hits").response;
    assert.equal(isNoMatch(none.status, none.body), true);
    assert.equal(isNoMatch(404, '{"message":"Not Found"}'), false);
    assert.match(errorDetail(recorded("search-bad-request")), /review patent data request filter section/);
    assert.equal(errorDetail(recorded("search-key-refused")), "Forbidden");
    assert.throws(() => normaliseSearch("<html>"), PatentShapeError);
    assert.throws(() => normaliseSearch('{"patentFileWrapperDataBag":{}}'), PatentShapeError);
    assert.throws(() => normaliseSearch('{"message":"Forbidden"}'), PatentShapeError);
  });
});
