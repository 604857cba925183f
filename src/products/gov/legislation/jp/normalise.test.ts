import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import { type EgovLaws, normaliseLaw, normaliseSearch, parseJpId, pickLaw } from "./normalise.ts";

const body = <T>(name: string): T => JSON.parse(recordedBody(name)) as T;

describe("Japanese ids", () => {
  it("accepts a law id (full-width too) and a law number", () => {
    assert.deepEqual(parseJpId("129AC0000000089"), { id: "129AC0000000089" });
    assert.deepEqual(parseJpId("１２９ａｃ００００００００８９"), { id: "129AC0000000089" });
    assert.deepEqual(parseJpId("明治二十九年法律第八十九号"), { id: "明治二十九年法律第八十九号" });
    for (const bad of ["129AC", "民法", "AC0000000089129", "明治二十九年"]) {
      assert.match((parseJpId(bad) as { error: string }).error, /law id/, bad);
    }
  });
});

describe("e-Gov → answers", () => {
  it("a search keeps titles, kana, category and the total", () => {
    const { totalCount, items } = normaliseSearch(body<EgovLaws>("jp-search-minpo"), "https://x/laws");
    assert.equal(totalCount, 2);
    assert.deepEqual(
      items.map((i) => [i.id, i.title, i.titleKana, i.category, i.citation, i.inForce]),
      [
        ["129AC0000000089", "民法", "みんぽう", "民事", "明治二十九年法律第八十九号", true],
        ["131AC0000000011", "民法施行法", "みんぽうしこうほう", "民事", "明治三十一年法律第十一号", true],
      ],
    );
    assert.equal(items[0]?.sourceUrl, "https://laws.e-gov.go.jp/law/129AC0000000089");
  });

  it("one law carries its revision status and the amending law as revision note", () => {
    const laws = body<EgovLaws>("jp-law-129AC0000000089");
    const act = normaliseLaw(pickLaw(laws, "129AC0000000089") ?? {}, "https://x");
    assert.equal(act?.revisionStatus, "CurrentEnforced");
    assert.match(act?.revisionNote ?? "", /令和六年法律第三十三号/);
    assert.deepEqual(act?.dates, {
      published: "1896-04-27",
      lastAmended: "2024-05-24",
      versionInForceFrom: "2026-04-01",
      updated: "2026-04-01",
    });
  });

  it("a repealed law is not in force and says so", () => {
    const laws = body<EgovLaws>("jp-law-328AC0000000097");
    const act = normaliseLaw(pickLaw(laws, "328AC0000000097") ?? {}, "https://x");
    assert.deepEqual(
      [act?.inForce, act?.status, act?.dates.repealed, act?.revisionNote],
      [false, "repealed", "1985-04-01", null],
    );
  });

  it("an unknown id picks nothing", () => {
    assert.equal(pickLaw(body<EgovLaws>("jp-law-unknown"), "999AC0000000999"), undefined);
  });
});
