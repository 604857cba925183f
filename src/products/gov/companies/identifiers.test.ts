import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  icoCheckDigit,
  luhnValid,
  parseCzIco,
  parseSiren,
  parseSkIco,
  parseUkCompanyNumber,
} from "./identifiers.ts";

describe("company identifiers", () => {
  it("SIREN: 9 digits with a Luhn check digit, spaces allowed", () => {
    assert.deepEqual(parseSiren("552 032 534"), { id: "552032534" });
    assert.deepEqual(parseSiren("356000000"), { id: "356000000" }, "La Poste's SIREN passes Luhn");
    assert.match((parseSiren("552032535") as { error: string }).error, /Luhn/);
    assert.match((parseSiren("55203253") as { error: string }).error, /9-digit SIREN/);
    assert.equal(luhnValid("123456782"), true);
  });

  it("Czech IČO: 8 digits with the mod-11 check digit (10 → 0, 11 → 1)", () => {
    assert.deepEqual(parseCzIco("27082440"), { id: "27082440" });
    assert.deepEqual(parseCzIco("00006947"), { id: "00006947" });
    assert.equal(icoCheckDigit("0000001"), 9);
    assert.match((parseCzIco("27082441") as { error: string }).error, /check digit/);
    assert.match((parseCzIco("6947") as { error: string }).error, /8-digit IČO/);
  });

  it("Slovak IČO: 6 to 8 digits, padded to 8", () => {
    assert.deepEqual(parseSkIco("36421928"), { id: "36421928" });
    assert.deepEqual(parseSkIco("151866"), { id: "00151866" });
    assert.ok("error" in parseSkIco("12345"));
    assert.ok("error" in parseSkIco("123456789"));
  });

  it("UK company numbers: zero-padded to 8, upper-cased prefixes", () => {
    assert.deepEqual(parseUkCompanyNumber("445790"), { id: "00445790" });
    assert.deepEqual(parseUkCompanyNumber("sc123456"), { id: "SC123456" });
    assert.deepEqual(parseUkCompanyNumber("SC12345"), { id: "SC012345" });
    assert.deepEqual(parseUkCompanyNumber("OE012345"), { id: "OE012345" });
    assert.ok("error" in parseUkCompanyNumber("123456789"));
    assert.ok("error" in parseUkCompanyNumber("ABC12345"));
    assert.ok("error" in parseUkCompanyNumber("00-445790"));
  });
});
