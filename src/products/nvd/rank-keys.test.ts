import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareIds, idCode, idOfCode, timeCode, timeOfCode } from "./rank-keys.ts";

describe("CVE ids as numbers", () => {
  it("turns a canonical id into a number and back", () => {
    for (const id of [
      "CVE-2026-0001",
      "CVE-1999-0001",
      "CVE-2021-44228",
      "CVE-2024-1000001",
      "CVE-0999-9999",
    ]) {
      const code = idCode(id);
      assert.ok(Number.isFinite(code), id);
      assert.equal(idOfCode(code), id);
    }
    assert.equal(idOfCode(idCode("CVE-2026-123456789")), "CVE-2026-123456789");
  });

  it("has no number for an id in any other shape", () => {
    for (const id of [
      "CVE-2026-00001",
      "CVE-2026-001",
      "cve-2026-0001",
      "CVE-26-0001",
      "CVE-2026-1234567890",
      "CVE-2026-0001 ",
      "GHSA-xxxx-yyyy-zzzz",
      "",
    ])
      assert.ok(Number.isNaN(idCode(id)), id);
  });

  it("orders numbers as the ids rank: a longer id is a higher number, then as strings", () => {
    const ids = [
      "CVE-2026-9999",
      "CVE-2025-10000",
      "CVE-2026-10000",
      "CVE-2026-0001",
      "CVE-2025-9999",
      "CVE-1999-1234567",
      "CVE-2026-999999",
      "CVE-2000-0002",
    ];
    const byString = [...ids].sort(compareIds);
    const byCode = [...ids].sort((a, b) => idCode(a) - idCode(b));
    assert.deepEqual(byCode, byString);
    assert.deepEqual(byString.slice(0, 2), ["CVE-2000-0002", "CVE-2025-9999"]);
  });
});

describe("publication times as numbers", () => {
  it("turns the canonical ISO form into ms and back, and nothing else", () => {
    assert.equal(timeCode("2026-11-01T00:00:00.000Z"), Date.UTC(2026, 10, 1));
    assert.equal(timeOfCode(timeCode("2026-11-01T12:34:56.789Z")), "2026-11-01T12:34:56.789Z");
    for (const odd of [
      "2026-11-01T00:00:00Z",
      "2026-11-01T00:00:00.000+00:00",
      "2026-11-01",
      "2026-11-01T00:00:00.000",
      "not a date",
    ])
      assert.ok(Number.isNaN(timeCode(odd)), odd);
  });
});
