// Corporations Canada records on the recorded sample files: codes resolved, names with their validity
// windows, dissolved and amalgamated corporations, the BN root; identifiers checked before payment.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { xmlRecords } from "../../shared/xml-elements.ts";
import { parseCodes } from "./codes.ts";
import { parseBn9, parseCorporationId } from "./identifiers.ts";
import { type CaCompany, parseCorporation } from "./normalise.ts";
import { CA_SAMPLE_DIR } from "./upstream.ts";

const codes = parseCodes(fs.readFileSync(path.join(CA_SAMPLE_DIR, "codes.xml"), "utf8"));

async function companies(file: string): Promise<CaCompany[]> {
  const found: CaCompany[] = [];
  const context = {
    codes,
    sourceFile: file,
    sourceUrl: "https://example.test/a.zip",
    scrapedAt: "2026-11-22T00:00:00.000Z",
  };
  for await (const record of xmlRecords(fs.createReadStream(path.join(CA_SAMPLE_DIR, file)), "corporation")) {
    const parsed = parseCorporation(record.xml, context);
    if ("error" in parsed) throw new Error(parsed.error);
    found.push(parsed.company);
  }
  return found;
}

describe("codes.xml", () => {
  it("resolves the status, act and activity lists; an unknown code or list is null", () => {
    assert.deepEqual(codes.lists(), ["status", "act", "activity"]);
    assert.equal(codes.label("status", "3"), "Active - Dissolution Pending (Non-compliance)");
    assert.equal(codes.label("act", "6"), "Canada Business Corporations Act");
    assert.equal(codes.label("activity", "101"), "Dissolution");
    assert.equal(codes.label("status", "77"), null);
    assert.equal(codes.label("name", "1"), null);
    assert.throws(() => parseCodes("<html>maintenance</html>"), /no <code name/);
  });
});

describe("a <corporation> record", () => {
  it("an active corporation: resolved act and status, names current first with their windows, office", async () => {
    const [abbotsford] = await companies("OPEN_DATA_1.xml");
    assert.deepEqual(
      [abbotsford?.id, abbotsford?.name, abbotsford?.status, abbotsford?.active, abbotsford?.statusDetail],
      ["1007", "Abbotsford Chamber of Commerce", "Active", true, null],
    );
    assert.equal(abbotsford?.act, "Boards of Trade Act - Part II");
    assert.deepEqual(
      abbotsford?.names.map((n) => [n.name, n.current, n.effectiveDate, n.expiryDate]),
      [
        ["Abbotsford Chamber of Commerce", true, "1995-02-06", null],
        ["ABBOTSFORD-CLEARBROOK CHAMBER OF COMMERCE", false, "1981-11-10", "1991-12-27"],
        ["ABBOTSFORD AND DISTRICT CHAMBER OF COMMERCE", false, "1947-01-10", "1981-11-10"],
      ],
    );
    assert.deepEqual(
      abbotsford?.names.map((n) => n.nameType),
      ["Primary", "Primary", "Primary"],
      "no name list in codes.xml: code 1 is the primary name, current or former",
    );
    assert.deepEqual(abbotsford?.registeredOffice, {
      street: "207-32900 South Fraser Way",
      city: "Abbotsford",
      province: "BC",
      country: "CA",
      postalCode: "V2S 5A1",
    });
    assert.equal(abbotsford?.address, "207-32900 South Fraser Way, Abbotsford, BC V2S 5A1, CA");
    assert.deepEqual(
      [abbotsford?.anniversaryDate, abbotsford?.created, abbotsford?.yearLastAnnualFiling],
      ["1947-01-10", "1947-01-10", 2025],
    );
    assert.deepEqual(abbotsford?.annualFilings[0], { year: 2025, annualMeetingDate: "2025-05-21" });
    assert.deepEqual([abbotsford?.scope, abbotsford?.sourceFile], ["federal", "OPEN_DATA_1.xml"]);
  });

  it("a dissolved corporation: inactive, status dated, dissolution among its activities; BN reduced to its root", async () => {
    const [, dissolved] = await companies("OPEN_DATA_1.xml");
    assert.deepEqual(
      [dissolved?.status, dissolved?.statusCode, dissolved?.active, dissolved?.statusDate],
      ["Dissolved", "11", false, "2014-07-28"],
    );
    assert.deepEqual(
      dissolved?.activities.map((a) => [a.activity, a.date]),
      [
        ["Incorporation", "1997-08-19"],
        ["Dissolution", "2014-07-28"],
      ],
    );
    assert.equal(dissolved?.bn9, "872345676");
    assert.equal(dissolved?.registeredOffice?.street, "1200 Rue Sainte-Catherine Ouest, Bureau 400");
  });

  it("amalgamated (inactive, created by amalgamation) and dissolution pending (still active, detail kept)", async () => {
    const [amalgamated, pending] = await companies("OPEN_DATA_2.xml");
    assert.deepEqual(
      [amalgamated?.status, amalgamated?.statusDetail, amalgamated?.active, amalgamated?.anniversaryDate],
      ["Inactive", "Inactive - Amalgamated", false, "2008-01-02"],
    );
    assert.deepEqual([amalgamated?.bn9, amalgamated?.yearLastAnnualFiling], [null, null]);
    assert.deepEqual(
      [pending?.status, pending?.statusDetail, pending?.active, pending?.registeredOffice],
      ["Active", "Active - Dissolution Pending (Non-compliance)", true, null],
    );
  });

  it("annual returns are read whether the year and meeting date are child elements or attributes", () => {
    const context = {
      codes,
      sourceFile: "f.xml",
      sourceUrl: "https://example.test/a.zip",
      scrapedAt: "2026-11-22T00:00:00.000Z",
    };
    const parsed = parseCorporation(
      '<corporation corporationId="7"><names><name code="1" current="true">A LTD.</name></names><annualReturns>' +
        "<annualReturn><annualMeetingDate>2023-06-01T00:00:00</annualMeetingDate><yearOfFiling>2023</yearOfFiling></annualReturn>" +
        '<annualReturn yearOfFiling="2024" annualMeetingDate="2024-06-03T00:00:00"/>' +
        "</annualReturns></corporation>",
      context,
    );
    assert.ok("company" in parsed);
    assert.deepEqual(parsed.company.annualFilings, [
      { year: 2024, annualMeetingDate: "2024-06-03" },
      { year: 2023, annualMeetingDate: "2023-06-01" },
    ]);
  });

  it("a record that is not well-formed, or has no number or no name, is an error, not a company", () => {
    const context = {
      codes,
      sourceFile: "f.xml",
      sourceUrl: "https://example.test/a.zip",
      scrapedAt: "2026-11-22T00:00:00.000Z",
    };
    const broken = parseCorporation(
      '<corporation corporationId="5">\n<names><name>A</nam></names></corporation>',
      context,
    );
    assert.deepEqual("error" in broken && [broken.recordLine, /closing tag/.test(broken.error)], [2, true]);
    assert.match(
      (
        parseCorporation("<corporation><names><name>A</name></names></corporation>", context) as {
          error: string;
        }
      ).error,
      /without a numeric corporationId/,
    );
    assert.match(
      (
        parseCorporation('<corporation corporationId="9"><names/></corporation>', context) as {
          error: string;
        }
      ).error,
      /corporation 9 has no name/,
    );
  });
});

describe("Canadian identifiers", () => {
  it("corporation numbers: hyphen and leading zeros allowed, canonical without zeros; 9+ digits refused", () => {
    assert.deepEqual(parseCorporationId("229101-1"), { id: "2291011" });
    assert.deepEqual(parseCorporationId("0090018"), { id: "90018" });
    assert.deepEqual(parseCorporationId("1007"), { id: "1007" });
    for (const bad of ["123456789", "12a4", "", "0000", "-"]) {
      assert.match((parseCorporationId(bad) as { error: string }).error, /^corporationId must be/);
    }
  });

  it("business numbers: the 9-digit root, a full BN reduced to it; other lengths refused", () => {
    assert.deepEqual(parseBn9("872 345 676"), { id: "872345676" });
    assert.deepEqual(parseBn9("872345676rc0001"), { id: "872345676" });
    for (const bad of ["87234567", "8723456761", "872345676RC01"]) {
      assert.match((parseBn9(bad) as { error: string }).error, /^bn9 must be/);
    }
  });
});
