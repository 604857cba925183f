import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { USPTO_RECORDINGS_DIR } from "./index.ts";
import { normaliseSearch, PatentShapeError } from "./normalise.ts";
import { normalisePatentNumber, PatentQuery } from "./query.ts";

const recorded = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(USPTO_RECORDINGS_DIR, `${name}.recording.json`), "utf8")).response
    .body as string;

describe("patent numbers and the q|patentNumber rule", () => {
  it("normalises the ways grant numbers are written", () => {
    const cases: Array<[string, string | undefined]> = [
      ["11896123", "11896123"],
      ["US 11,896,123 B2", "11896123"],
      ["us11896123b1", "11896123"],
      ["D987,654 S", "D987654"],
      ["PP34567", "PP34567"],
      ["RE49876E", "RE49876"],
      ["06000000", "6000000"],
      ["0", undefined],
      ["123456789", undefined],
      ["EP1234567", undefined],
      ["11896123X9", undefined],
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

describe("PatentSearch normaliser", () => {
  it("one grant: dates, assignees, inventors' count only, CPC, claims", () => {
    const page = normaliseSearch(recorded("patent-11896123"));
    assert.equal(page.totalHits, 1);
    assert.deepEqual(page.patents[0], {
      patentNumber: "11896123",
      title: "Sample smart lock with biometric authentication",
      abstract:
        "A sample abstract: a lock that unlocks when an enrolled fingerprint is read (placeholder text).",
      type: "utility",
      grantDate: "2024-02-13",
      filingDate: "2021-09-30",
      earliestApplicationDate: "2021-09-30",
      assignees: ["Sample Lock Corporation"],
      inventorsCount: 3,
      cpcGroups: ["E05B47/00", "G06V40/12", "E05B47/0001"],
      cpcSubclasses: ["E05B", "G06V"],
      claimsCount: 20,
    });
  });

  it("missing lists are empty or null; persons as assignees", () => {
    const page = normaliseSearch(recorded("search-lithium-battery"));
    assert.equal(page.totalHits, 1234);
    assert.deepEqual(page.patents[0]?.assignees, ["Sample Energy Inc.", "Ada Sample"]);
    const design = page.patents[1];
    assert.equal(design?.inventorsCount, null);
    assert.equal(design?.filingDate, null);
    assert.deepEqual(design?.cpcGroups, []);
  });

  it("no hits, and errors", () => {
    assert.deepEqual(normaliseSearch(recorded("search-no-hits")), { totalHits: 0, patents: [] });
    assert.throws(() => normaliseSearch('{"error":true}'), PatentShapeError);
    assert.throws(() => normaliseSearch("<html>"), PatentShapeError);
  });
});
