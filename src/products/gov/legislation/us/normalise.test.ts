import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import {
  type EcfrAgencies,
  type EcfrAncestry,
  type EcfrSearchResponse,
  type EcfrTitles,
  type EcfrVersions,
  normaliseSearch,
  normaliseSection,
  parseUsId,
  splitUsId,
} from "./normalise.ts";

const body = <T>(name: string): T => JSON.parse(recordedBody(name)) as T;

describe("US ids", () => {
  it("accepts title/part/section and the CFR citation, refuses other shapes naming the shape", () => {
    assert.deepEqual(parseUsId("21/11/11.1"), { id: "21/11/11.1" });
    assert.deepEqual(parseUsId("21 CFR 11.1"), { id: "21/11/11.1" });
    assert.deepEqual(parseUsId("40 C.F.R. § 60.4"), { id: "40/60/60.4" });
    for (const bad of ["21/11", "21/11/12.1", "99/1/1.1", "CFR", "21-11-11.1"]) {
      assert.match((parseUsId(bad) as { error: string }).error, /title\/part\/section/, bad);
    }
  });
});

describe("eCFR search → items", () => {
  it("keeps section hits with plain headings, citation, dates and the removed flag", () => {
    const { totalCount, items } = normaliseSearch(body<EcfrSearchResponse>("us-search-electronic-records"));
    assert.equal(totalCount, 2);
    assert.deepEqual(
      items.map((i) => [i.id, i.title, i.citation, i.inForce, i.status]),
      [
        ["21/11/11.1", "Scope.", "21 CFR 11.1", true, "current"],
        ["21/11/11.2", "Implementation.", "21 CFR 11.2", false, "removed"],
      ],
    );
    assert.equal(items[0]?.sourceUrl, "https://www.ecfr.gov/current/title-21/part-11/section-11.1");
    assert.deepEqual(items[1]?.dates, { validFrom: "2001-04-01", endOfValidity: "2017-01-03" });
    assert.equal(items[0]?.titleName, "Food and Drugs");
    assert.doesNotMatch(items[0]?.excerpt ?? "", /<strong>/);
  });

  it("no hits is an empty list with a zero total", () => {
    assert.deepEqual(normaliseSearch(body<EcfrSearchResponse>("us-search-no-hits")), {
      totalCount: 0,
      items: [],
    });
  });
});

describe("one eCFR section", () => {
  const common = {
    titles: body<EcfrTitles>("us-titles"),
    agencies: body<EcfrAgencies>("us-agencies"),
    apiUrl: "https://www.ecfr.gov/x",
  };
  it("joins ancestry, versions, title and agency", () => {
    const act = normaliseSection(splitUsId("21/11/11.1"), {
      ...common,
      ancestry: body<EcfrAncestry>("us-ancestry-21-11-11.1"),
      versions: body<EcfrVersions>("us-versions-21-11-11.1"),
    });
    assert.deepEqual(
      [act?.title, act?.citation, act?.inForce, act?.titleName, act?.partName, act?.agency],
      [
        "Scope.",
        "21 CFR 11.1",
        true,
        "Food and Drugs",
        "Electronic Records; Electronic Signatures",
        "Food and Drug Administration, Department of Health and Human Services",
      ],
    );
    assert.deepEqual(act?.dates, { lastAmended: "2017-01-03", validAt: "2026-11-20" });
  });

  it("a removed, reserved section is not in force", () => {
    const act = normaliseSection(splitUsId("21/11/11.2"), {
      ...common,
      ancestry: body<EcfrAncestry>("us-ancestry-21-11-11.2"),
      versions: body<EcfrVersions>("us-versions-21-11-11.2"),
    });
    assert.deepEqual([act?.inForce, act?.status], [false, "removed"]);
  });
});
