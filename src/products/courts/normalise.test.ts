import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EMPTY_PAGE, RECORDED_PAGE, recordedBody } from "./harness.test-helper.ts";
import { normaliseSearchPage, SearchPageError } from "./normalise.ts";

describe("CourtListener v4 search page normaliser, on the recordings", () => {
  it("maps every result of the recorded page to a hit with the spec's fields", () => {
    const page = normaliseSearchPage(RECORDED_PAGE);
    assert.equal(page.totalCount, 48213);
    assert.equal(page.hits.length, 20);
    assert.equal(page.skipped, 0);
    assert.deepEqual(page.hits[0], {
      caseName: "State v. Alder",
      court: "Supreme Court of the United States",
      dateFiled: "1968-01-01",
      docketNumber: "68-1000",
      absoluteUrl: "https://www.courtlistener.com/opinion/7100000/state-v-alder/",
      courtId: "scotus",
      clusterId: 7100000,
    });
    for (const hit of page.hits) {
      assert.deepEqual(Object.keys(hit), [
        "caseName",
        "court",
        "dateFiled",
        "docketNumber",
        "absoluteUrl",
        "courtId",
        "clusterId",
      ]);
      assert.match(hit.dateFiled, /^\d{4}-\d{2}-\d{2}$/);
      assert.match(hit.absoluteUrl, /^https:\/\/www\.courtlistener\.com\/opinion\/\d+\//);
      assert.ok(hit.caseName.length > 0);
    }
  });

  it("keeps the upstream order (best match first)", () => {
    const raw = JSON.parse(RECORDED_PAGE) as { results: Array<{ cluster_id: number }> };
    assert.deepEqual(
      normaliseSearchPage(RECORDED_PAGE).hits.map((h) => h.clusterId),
      raw.results.map((r) => r.cluster_id),
    );
  });

  it("falls back to caseNameFull when caseName is empty, and gives a null docket number as empty", () => {
    const { hits } = normaliseSearchPage(RECORDED_PAGE);
    assert.equal(hits[7]?.caseName, "Iverson v. Board of Commissioners of Jasper County");
    assert.equal(hits[4]?.docketNumber, "");
  });

  it("reads the recorded empty page as no hits", () => {
    assert.deepEqual(normaliseSearchPage(EMPTY_PAGE), { totalCount: 0, hits: [], skipped: 0 });
  });

  it("keeps the date of a timestamp, leaves a missing date empty, and skips results without a cluster id", () => {
    const raw = JSON.parse(RECORDED_PAGE) as { count: number; results: Array<Record<string, unknown>> };
    const [first, second, third] = raw.results;
    const page = normaliseSearchPage(
      JSON.stringify({
        count: 3,
        results: [
          { ...first, dateFiled: "2003-01-10T00:00:00-08:00" },
          { ...second, dateFiled: null, absolute_url: null, court: null },
          { ...third, cluster_id: null },
          "not a result",
        ],
      }),
    );
    assert.equal(page.hits.length, 2);
    assert.equal(page.skipped, 2);
    assert.equal(page.hits[0]?.dateFiled, "2003-01-10");
    assert.equal(page.hits[1]?.dateFiled, "");
    assert.equal(page.hits[1]?.absoluteUrl, "");
    assert.equal(page.hits[1]?.court, "");
    assert.equal(page.totalCount, 3);
  });

  it("refuses a body that is not a search page", () => {
    assert.throws(() => normaliseSearchPage("<html>Maintenance</html>"), SearchPageError);
    assert.throws(
      () => normaliseSearchPage(recordedBody("search-throttled.recording.json")),
      /no results list/,
    );
    assert.throws(() => normaliseSearchPage('{"detail":"Request was throttled."}'), /no results list/);
  });
});
