import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import type { SparqlBinding } from "../sparql.ts";
import { citationFromTitle, indexEntriesOf, normaliseAct, parseCelex } from "./normalise.ts";

const rows = (name: string) =>
  (JSON.parse(recordedBody(name)) as { results: { bindings: SparqlBinding[] } }).results.bindings;

describe("eu normalise", () => {
  it("parses CELEX numbers in their forms and refuses other shapes", () => {
    assert.deepEqual(parseCelex("32016R0679"), { id: "32016R0679" });
    assert.deepEqual(parseCelex("celex:32016r0679"), { id: "32016R0679" });
    assert.deepEqual(parseCelex("https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX%3A32011L0083"), {
      id: "32011L0083",
    });
    for (const bad of ["2016/679", "32016R679", "GDPR", "3201R0679"])
      assert.ok("error" in parseCelex(bad), bad);
  });

  it("takes the citation the English title starts with", () => {
    assert.equal(
      citationFromTitle("Regulation (EU) 2016/679 of the European Parliament"),
      "Regulation (EU) 2016/679",
    );
    assert.equal(citationFromTitle("Directive 95/46/EC of the European Parliament"), "Directive 95/46/EC");
    assert.equal(
      citationFromTitle("Council Regulation (EC) No 1/2003 of 16 December 2002"),
      "Council Regulation (EC) No 1/2003",
    );
    assert.equal(citationFromTitle("Agreement between the Union and Norway"), null);
  });

  it("one act: the earliest entry into force, no end of validity for 9999-12-31, the Cellar URI", () => {
    const act = normaliseAct("32016R0679", rows("eu-act-32016R0679"), "https://api.test/");
    assert.ok(act);
    assert.deepEqual(
      [act.type, act.citation, act.inForce, act.status, act.eli, act.cellarUri],
      [
        "REG",
        "Regulation (EU) 2016/679",
        true,
        "in force",
        "http://data.europa.eu/eli/reg/2016/679/oj",
        "http://publications.europa.eu/resource/cellar/3e485e15-11bd-11e6-ba9a-01aa75ed71a1",
      ],
    );
    assert.deepEqual(act.dates, { adopted: "2016-04-27", entryIntoForce: "2016-05-24" });
    assert.equal(act.sourceUrl, "https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32016R0679");
  });

  it("a repealed act is inForce false with its end of validity; an unknown CELEX is no act", () => {
    const act = normaliseAct("31995L0046", rows("eu-act-31995L0046"), "https://api.test/");
    assert.deepEqual(
      [act?.inForce, act?.status, act?.dates.endOfValidity],
      [false, "no longer in force", "2018-05-24"],
    );
    assert.equal(normaliseAct("32099R9999", rows("eu-act-unknown"), "https://api.test/"), undefined);
  });

  it("an index page gives one entry per CELEX", () => {
    const entries = indexEntriesOf(rows("eu-index-page-1"));
    assert.deepEqual(
      entries.map((e) => e.id),
      ["31995L0046", "32011L0083", "32016R0679", "32021D1234"],
    );
    assert.equal(entries[2]?.alt, "32016R0679 Regulation (EU) 2016/679");
  });
});
