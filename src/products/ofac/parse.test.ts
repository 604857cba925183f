import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CONSOLIDATED_XML, SDN_XML } from "./harness.test-helper.ts";
import { parseSanctionsList, SanctionsListError } from "./parse.ts";

describe("parsing OFAC's sdnList XML", () => {
  const sdn = parseSanctionsList(SDN_XML, "SDN");

  it("reads the publication header and every entry", () => {
    assert.equal(sdn.publishDate, "07/24/2026");
    assert.equal(sdn.publishedOn, "2026-07-24");
    assert.equal(sdn.recordCount, 6);
    assert.deepEqual(
      sdn.entries.map((e) => e.uid),
      [36, 11195, 29702, 47371, 48603, 50123],
    );
  });

  it("keeps programs, aliases with their category, addresses and ids", () => {
    const iran = sdn.entries.find((e) => e.uid === 11195);
    assert.deepEqual(iran?.programs, ["NPWMD", "IFSR"]);
    assert.deepEqual(iran?.addresses[0], {
      street: "P.O. Box 14155-5568, No. 27 Shahamat Ave, Vallie Asr Sqr",
      city: "Tehran",
      stateOrProvince: null,
      postalCode: "15946",
      country: "Iran",
    });
    const person = sdn.entries.find((e) => e.uid === 29702);
    assert.equal(person?.type, "individual");
    assert.equal(person?.firstName, "Artem Mikhaylovich");
    assert.deepEqual(person?.datesOfBirth, ["26 Dec 1992"]);
    assert.deepEqual(person?.nationalities, ["Russia"]);
    assert.deepEqual(person?.ids[1], {
      type: "Digital Currency Address - XBT",
      number: "12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz",
      country: null,
      issueDate: null,
      expirationDate: null,
    });
    const khoroshev = sdn.entries.find((e) => e.uid === 48603);
    assert.deepEqual(
      khoroshev?.aliases.map((a) => [a.lastName, a.category]),
      [
        ["KHOROSHEV", "strong"],
        ["LOCKBITSUPP", "weak"],
        ["PUTINKRAB", "weak"],
      ],
    );
    const fka = sdn.entries.find((e) => e.uid === 50123)?.aliases[0];
    assert.equal(fka?.kind, "fka");
    assert.equal(sdn.entries.find((e) => e.uid === 50123)?.lastName, "SAMPLE TRADING & SHIPPING LLC");
  });

  it("reads vessel details", () => {
    const vessel = sdn.entries.find((e) => e.uid === 47371);
    assert.equal(vessel?.type, "vessel");
    assert.deepEqual(vessel?.vessel, {
      callSign: "A8LU7",
      vesselType: "Crude Oil Tanker",
      flag: "Gabon",
      owner: null,
      tonnage: null,
      grossRegisteredTonnage: null,
    });
  });

  it("parses the consolidated list, and old files in the tempuri namespace", () => {
    const cons = parseSanctionsList(CONSOLIDATED_XML, "CONSOLIDATED");
    assert.equal(cons.publishedOn, "2026-07-21");
    assert.equal(cons.entries[0]?.list, "CONSOLIDATED");
    const old = SDN_XML.replace(/xmlns="[^"]+"/, 'xmlns="http://tempuri.org/sdnList.xsd"');
    assert.equal(parseSanctionsList(old, "SDN").entries.length, 6);
  });

  it("refuses a list cut off, a count that does not add up, or something else", () => {
    assert.throws(
      () => parseSanctionsList(SDN_XML.slice(0, SDN_XML.length - 400), "SDN"),
      SanctionsListError,
    );
    assert.throws(
      () => parseSanctionsList(SDN_XML.replace("<Record_Count>6<", "<Record_Count>7<"), "SDN"),
      /Record_Count says 7/,
    );
    assert.throws(() => parseSanctionsList("<html>maintenance</html>", "SDN"), SanctionsListError);
  });
});
