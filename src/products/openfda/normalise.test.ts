import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { IBUPROFEN_PAGE, recordedBody } from "./harness.test-helper.ts";
import { LabelPageError, normaliseLabelPage, SECTION_MAX_CHARS } from "./normalise.ts";
import { foldDiacritics, parseLabelQuery } from "./query.ts";
import { refusalOf } from "./upstream.ts";

describe("openFDA label pages", () => {
  const page = normaliseLabelPage(IBUPROFEN_PAGE);

  it("reads meta and every label, newest first", () => {
    assert.equal(page.total, 3);
    assert.equal(page.lastUpdated, "2026-07-21");
    assert.match(page.disclaimer ?? "", /^Do not rely on openFDA/);
    assert.deepEqual(
      page.labels.map((l) => l.effectiveDate),
      ["2026-03-02", "2026-01-14", "2025-11-05"],
    );
  });

  it("turns a prescription label into the card: names, boxed warning, sections, links", () => {
    const rx = page.labels[0];
    assert.equal(rx?.setId, "7c1e9f2a-3b4d-4c5e-8f6a-9b0c1d2e3f4a");
    assert.deepEqual(rx?.brandNames, ["Ibuprofen"]);
    assert.deepEqual(rx?.routes, ["ORAL"]);
    assert.deepEqual(rx?.applicationNumbers, ["ANDA070000"]);
    assert.match(rx?.boxedWarning ?? "", /^WARNING: RISK OF SERIOUS CARDIOVASCULAR/);
    assert.match(rx?.warnings ?? "", /Hepatotoxicity/, "warnings_and_cautions is read as warnings");
    assert.equal(rx?.activeIngredients, null, "prescription labels have no active ingredient section");
    assert.equal(rx?.purpose, null);
    assert.equal(
      rx?.dailyMedUrl,
      "https://dailymed.nlm.nih.gov/dailymed/lookup.cfm?setid=7c1e9f2a-3b4d-4c5e-8f6a-9b0c1d2e3f4a",
    );
  });

  it("turns an OTC label into the card: active ingredient and purpose, no boxed warning", () => {
    const otc = page.labels[1];
    assert.deepEqual(otc?.brandNames, ["Advil"]);
    assert.deepEqual(otc?.manufacturers, ["Haleon US Holdings LLC"]);
    assert.match(otc?.activeIngredients ?? "", /Ibuprofen 200 mg/);
    assert.equal(otc?.purpose, "Purpose Pain reliever/fever reducer");
    assert.equal(otc?.boxedWarning, null);
  });

  it("keeps one label per set id, handles a missing openfda block and cuts long sections", () => {
    const raw = JSON.parse(IBUPROFEN_PAGE) as { results: Array<Record<string, unknown>> };
    const first = raw.results[0] as Record<string, unknown>;
    const bare = { ...first, id: "x", openfda: undefined, warnings: ["w ".repeat(SECTION_MAX_CHARS)] };
    const page2 = normaliseLabelPage(
      JSON.stringify({ results: [first, { ...bare, set_id: "abcdef12-0000" }, first] }),
    );
    assert.equal(page2.labels.length, 2);
    assert.equal(page2.total, 2);
    assert.deepEqual(page2.labels[1]?.brandNames, []);
    assert.deepEqual(page2.labels[1]?.truncatedSections, ["warnings"]);
    assert.equal(page2.labels[1]?.warnings?.length, SECTION_MAX_CHARS);
  });

  it("refuses what is not a label search answer", () => {
    assert.throws(() => normaliseLabelPage("<html>"), LabelPageError);
    assert.throws(() => normaliseLabelPage('{"meta":{}}'), LabelPageError);
  });
});

describe("openFDA searches ASCII only", () => {
  it("folds accents where that is the same name, and refuses letters with no ASCII form", () => {
    assert.deepEqual(parseLabelQuery("Ibuprofène"), { text: "Ibuprofène", key: "ibuprofene" });
    assert.deepEqual(parseLabelQuery("ÉPINÉPHRINE"), { text: "ÉPINÉPHRINE", key: "epinephrine" });
    assert.equal(foldDiacritics("Paracétamol Ñ ü"), "Paracetamol N u");
    for (const q of ["straße", "Æther", "Ørsted", "аспирин", "ﬁbrin", "阿司匹林"]) {
      const parsed = parseLabelQuery(q);
      assert.ok("error" in parsed, q);
      assert.match(parsed.error, /openFDA cannot search/);
    }
  });

  it("openFDA's 400 for a search it will not run: its message is kept (server source's shape)", () => {
    assert.match(
      refusalOf(recordedBody("search-not-supported")),
      /^Search not supported: openfda\.brand_name%3A/,
    );
    assert.equal(refusalOf("<html>Bad Request</html>"), "<html>Bad Request</html>");
  });
});
