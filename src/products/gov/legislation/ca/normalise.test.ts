import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import { indexItems, normaliseAct, parseActXml, parseCaCode, parseLegis } from "./normalise.ts";

const xmlOf = recordedBody;

describe("Canadian codes", () => {
  it("accepts acts, regulations and C.R.C. chapters in their usual spellings", () => {
    assert.deepEqual(parseCaCode("c-46"), { code: "C-46" });
    assert.deepEqual(parseCaCode("C-15.31"), { code: "C-15.31" });
    assert.deepEqual(parseCaCode("SOR/2007-151"), { code: "SOR-2007-151" });
    assert.deepEqual(parseCaCode("C.R.C., c. 986"), { code: "C.R.C.,_c._986" });
    for (const bad of ["Criminal Code", "C46", "SOR-2007", "../C-46"])
      assert.ok("error" in parseCaCode(bad), bad);
  });
});

describe("Legis.xml", () => {
  it("keeps English records with their French titles, joined by olid or by code", () => {
    const items = indexItems(parseLegis(xmlOf("ca-legis-index")));
    assert.deepEqual(
      items.map((i) => [i.code, i.kind, i.titleEn, i.titleFr]),
      [
        ["A-1", "act", "Access to Information Act", "Loi sur l’accès à l’information"],
        ["C-46", "act", "Criminal Code", "Code criminel"],
        ["Y-1", "act", "Young Offenders Act", "Loi sur les jeunes contrevenants"],
        [
          "SOR-2007-151",
          "regulation",
          "Canadian Aviation Security Regulations",
          "Règlement canadien sur la sûreté aérienne",
        ],
      ],
    );
    assert.equal(items[1]?.xmlUrl, "https://laws-lois.justice.gc.ca/eng/XML/C-46.xml");
  });

  it("a maintenance page is refused; a single act is still a list", () => {
    assert.throws(() => parseLegis("<html><body>Maintenance</body></html>"), /ActsRegsList/);
    const one = parseLegis(
      "\uFEFF<ActsRegsList><Acts><Act><UniqueId>A-1</UniqueId><Language>eng</Language><Title>Access to Information Act</Title></Act></Acts></ActsRegsList>",
    );
    assert.equal(one.length, 1);
  });
});

describe("one act's XML", () => {
  it("reads the identification, the dates and every section's text in order", () => {
    const parsed = parseActXml(xmlOf("ca-act-C-46"));
    assert.deepEqual(
      [
        parsed.kind,
        parsed.inForce,
        parsed.pitDate,
        parsed.lastAmended,
        parsed.shortTitle,
        parsed.consolidatedNumber,
      ],
      ["act", true, "2026-10-30", "2026-10-30", "Criminal Code", "C-46"],
    );
    assert.equal(parsed.longTitle, "An Act respecting the Criminal Law");
    assert.deepEqual(parsed.sections[0], {
      label: "1",
      marginalNote: "Short title",
      text: "This Act may be cited as the Criminal Code.",
    });
    assert.equal(parsed.sections.length, 2);
  });

  it("a repealed act is not in force", () => {
    const parsed = parseActXml(xmlOf("ca-act-Y-1"));
    const act = normaliseAct("Y-1", parsed, undefined, {
      url: "https://x/Y-1.xml",
      scrapedAt: "2026-11-25T00:00:00.000Z",
    });
    assert.deepEqual([act.inForce, act.status, act.titleFr], [false, "repealed or not in force", null]);
  });

  it("a page that is not an act is refused", () => {
    assert.throws(() => parseActXml("<html><body>Error 404</body></html>"), /no <Statute>/);
  });
});
