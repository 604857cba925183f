// KRS extracts on recordings of their documented shapes: current values out of history arrays, earlier names
// with their entries' dates, decimal-comma capital, deleted and S-register entities, the current extract's
// bare values, and no persons.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedJson } from "../recorded.test-helper.ts";
import { parseKrs } from "./identifiers.ts";
import { type KrsOdpis, krsDate, krsMoney, normaliseKrs, toItem } from "./normalise.ts";

describe("KRS full extracts", () => {
  it("a company: the values in force, the name history dated, capital with a decimal comma", () => {
    const company = normaliseKrs(recordedJson<KrsOdpis>("pl-krs-hit"), "0000019193", "P");
    assert.deepEqual(
      [company.name, company.legalForm, company.status, company.active, company.register],
      ["PRZYKŁAD SPÓŁKA AKCYJNA", "SPÓŁKA AKCYJNA", "active", true, "P"],
    );
    assert.deepEqual([company.vatId, company.regon], ["7740001454", "61018820000000"]);
    assert.equal(company.address, "UL. CHEMIKÓW 7, 09-411 PŁOCK");
    assert.equal(company.created, "2001-06-20");
    assert.deepEqual(company.formerNames, [
      { name: "PRZYKŁADOWY KONCERN NAFTOWY SPÓŁKA AKCYJNA", from: "2001-06-20", to: "2023-07-03" },
    ]);
    assert.deepEqual(company.shareCapital, { value: 1451177561.25, currency: "PLN" });
    assert.deepEqual(
      company.activities.map((a) => [a.code, a.main]),
      [
        ["19.20.Z", true],
        ["46.71.Z", false],
      ],
    );
    assert.equal(company.seat?.voivodeship, "MAZOWIECKIE");
    assert.deepEqual([company.publicBenefit, company.dissolved], [false, null]);
    assert.deepEqual(company.lastEntry, { number: 3, date: "2023-07-03" });
    const served = JSON.stringify(company);
    for (const person of ["K*******", "PREZES", "pesel", "7**********"]) {
      assert.equal(served.includes(person), false, `${person} is a board member's data, never served`);
    }
  });

  it("a company deleted after liquidation: status deleted with the deletion date", () => {
    const company = normaliseKrs(recordedJson<KrsOdpis>("pl-krs-dissolved"), "0000413516", "P");
    assert.deepEqual(
      [company.status, company.active, company.dissolved, company.created],
      ["deleted", false, "2026-09-24", "2012-03-08"],
    );
    assert.equal(company.address, "UL. PRZYKŁADOWA 49/3, 61-626 POZNAŃ");
    assert.deepEqual(company.shareCapital, { value: 5000, currency: "PLN" });
  });

  it("liquidation in force without a deletion entry is 'in liquidation'", () => {
    const doc = recordedJson<KrsOdpis>("pl-krs-dissolved");
    const entries = doc.odpis?.naglowekP?.wpis ?? [];
    const living = {
      odpis: { ...doc.odpis, naglowekP: { ...doc.odpis?.naglowekP, wpis: entries.slice(0, 2) } },
    };
    const company = normaliseKrs(living, "0000413516", "P");
    assert.deepEqual([company.status, company.active, company.dissolved], ["in liquidation", false, null]);
  });

  it("an association in register S: absent sections are null, not guessed", () => {
    const company = normaliseKrs(recordedJson<KrsOdpis>("pl-krs-association"), "0000056711", "S");
    assert.deepEqual(
      [company.register, company.legalForm, company.vatId, company.shareCapital, company.publicBenefit],
      ["S", "STOWARZYSZENIE", null, null, true],
    );
    assert.deepEqual(company.activities, []);
    assert.match(company.sourceUrl, /rejestr=S/);
  });

  it("the current extract's bare values are read the same way", () => {
    const current: KrsOdpis = {
      odpis: {
        rodzaj: "Aktualny",
        naglowekA: {
          rejestr: "RejP",
          numerKRS: "0000413516",
          dataRejestracjiWKRS: "08.03.2012",
          numerOstatniegoWpisu: 16,
          dataOstatniegoWpisu: "15.02.2021",
        },
        dane: {
          dzial1: {
            danePodmiotu: {
              formaPrawna: "SPÓŁKA Z OGRANICZONĄ ODPOWIEDZIALNOŚCIĄ",
              identyfikatory: { regon: "30204683000000", nip: "9721237317" },
              nazwa: "PRZYKŁAD SPÓŁKA Z OGRANICZONĄ ODPOWIEDZIALNOŚCIĄ",
            },
            siedzibaIAdres: {
              adres: {
                ulica: "UL. PRZYKŁADOWA",
                nrDomu: "49",
                kodPocztowy: "61-626",
                miejscowosc: "POZNAŃ",
                kraj: "POLSKA",
              },
            },
            kapital: { wysokoscKapitaluZakladowego: { wartosc: "5000,00", waluta: "PLN" } },
          },
          dzial3: {
            przedmiotDzialalnosci: {
              przedmiotPrzewazajacejDzialalnosci: [
                { opis: "DZIAŁALNOŚĆ PRAWNICZA", kodDzial: "69", kodKlasa: "10", kodPodklasa: "Z" },
              ],
            },
          },
        },
      },
    };
    const company = normaliseKrs(current, "0000413516", "P");
    assert.deepEqual(
      [
        company.vatId,
        company.address,
        company.created,
        company.shareCapital?.value,
        company.activities[0]?.code,
      ],
      ["9721237317", "UL. PRZYKŁADOWA 49, 61-626 POZNAŃ", "2012-03-08", 5000, "69.10.Z"],
    );
    assert.deepEqual(company.lastEntry, { number: 16, date: "2021-02-15" });
    assert.deepEqual(Object.keys(toItem(company)).sort(), [
      "active",
      "address",
      "created",
      "id",
      "legalForm",
      "name",
      "regon",
      "sourceUrl",
      "status",
      "vatId",
    ]);
  });

  it("dates, money and KRS numbers", () => {
    assert.deepEqual(
      [krsDate("20.06.2001"), krsDate("2026-03-31T10:00"), krsDate("x")],
      ["2001-06-20", "2026-03-31", null],
    );
    assert.deepEqual(
      [krsMoney("5000,00"), krsMoney("1 234,5"), krsMoney("1.234,56"), krsMoney("")],
      [5000, 1234.5, 1234.56, null],
    );
    assert.deepEqual(parseKrs("19193"), { id: "0000019193" });
    assert.ok("error" in parseKrs("00000191934"));
    assert.ok("error" in parseKrs("0000000000"));
    assert.match((parseKrs("12a") as { error: string }).error, /^id must be a KRS number/);
  });
});
