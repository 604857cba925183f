// RPO entities on recordings of RPO's real shape: history arrays with validity windows, double-encoded
// strings repaired, termination and liquidation, absent keys; persons never served.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedJson } from "../recorded.test-helper.ts";
import {
  normaliseRpoEntity,
  normaliseRpoItem,
  type RpoEntity,
  repairDoubleEncoding,
} from "./rpo-normalise.ts";

describe("RPO entities", () => {
  it("the full entity: current values, former names with windows, capital in force, scope in force", () => {
    const company = normaliseRpoEntity(recordedJson<RpoEntity>("sk-rpo-entity-hit"), "36421928");
    assert.deepEqual(
      [company.id, company.name, company.legalFormCode, company.active],
      ["36421928", "Websupport s. r. o.", "112", true],
    );
    assert.equal(company.legalForm, "Spoločnosť s ručením obmedzeným");
    assert.equal(
      company.address,
      "Karadžičova 7608/12, 82108 Bratislava - mestská časť Ružinov, Slovenská republika",
    );
    assert.deepEqual(company.formerNames, [
      { name: "WebSupport, s.r.o.", from: "2004-08-12", to: "2021-10-05" },
    ]);
    assert.deepEqual(company.shareCapital, { value: 6639, currency: "EUR", since: "2009-01-01" });
    assert.deepEqual(company.businessScope, ["Poskytovanie softvéru"]);
    assert.deepEqual(company.activity, { code: "62010", name: "Počítačové programovanie" });
    assert.equal(company.sector, "Súkromné nefinančné korporácie");
    assert.deepEqual(company.register, {
      name: "Obchodný register",
      office: "Mestský súd Bratislava III",
      number: "Sro 12345/B",
    });
    assert.equal(company.updated, "2026-05-04");
    assert.equal(
      JSON.stringify(company).includes("PLACEHOLDER"),
      false,
      "no statutory bodies, stakeholders or deposits",
    );
  });

  it("a terminated entity in liquidation; absent statistical codes and capital become null", () => {
    const company = normaliseRpoEntity(recordedJson<RpoEntity>("sk-rpo-entity-dissolved"), "99000008");
    assert.deepEqual(
      [company.status, company.active, company.dissolved],
      ["terminated", false, "2020-05-31"],
    );
    assert.deepEqual([company.activity, company.sector, company.shareCapital], [null, null, null]);
    assert.deepEqual(company.register, { name: "Obchodný register", office: null, number: null });
    const alive = normaliseRpoItem(
      { ...recordedJson<RpoEntity>("sk-rpo-entity-dissolved"), termination: null },
      "99000008",
    );
    assert.deepEqual([alive.status, alive.active], ["in liquidation", false]);
  });

  it("addresses: súpisné and orientačné číslo joined, 0 meaning none, a village without streets by its name", () => {
    const entity = recordedJson<RpoEntity>("sk-rpo-entity-dissolved");
    const at = (address: NonNullable<RpoEntity["addresses"]>[number]) =>
      normaliseRpoItem({ ...entity, addresses: [address] }, "99000008").address;
    const lokca = { municipality: { value: "Lokca" }, postalCodes: ["029 51"], validFrom: "2020-04-01" };
    assert.equal(at({ ...lokca, regNumber: 215 }), "Lokca 215, 029 51 Lokca");
    assert.equal(
      at({ ...lokca, street: "Komárnik", regNumber: 215, buildingNumber: "14" }),
      "Komárnik 215/14, 029 51 Lokca",
    );
    assert.equal(
      at({ ...lokca, street: "Vlčie hrdlo", regNumber: 0, buildingNumber: "1" }),
      "Vlčie hrdlo 1, 029 51 Lokca",
    );
    assert.equal(at({ ...lokca, street: "Vlčie hrdlo", regNumber: 0 }), "Vlčie hrdlo, 029 51 Lokca");
  });

  it("a legal status in force saying liquidation makes the entity inactive; one that ended does not", () => {
    const base = { ...recordedJson<RpoEntity>("sk-rpo-entity-hit") };
    const status = { value: { value: "V likvidácii" }, validFrom: "2024-01-01" };
    assert.deepEqual(
      [normaliseRpoItem({ ...base, legalStatuses: [status] }, "36421928").status],
      ["in liquidation"],
    );
    const ended = { ...status, validTo: "2024-06-30" };
    assert.equal(normaliseRpoItem({ ...base, legalStatuses: [ended] }, "36421928").active, true);
  });

  it("repairs UTF-8 read as Latin-1, and leaves proper text alone", () => {
    assert.equal(repairDoubleEncoding(Buffer.from("Karadžičova", "utf8").toString("latin1")), "Karadžičova");
    assert.equal(repairDoubleEncoding("Karadžičova"), "Karadžičova");
    assert.equal(repairDoubleEncoding("Ångström"), "Ångström");
  });
});
