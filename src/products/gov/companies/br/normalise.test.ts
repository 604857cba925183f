import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cnpjValid, parseCnpj } from "./cnpj.ts";
import { rfDate, rfDecimal, withoutPersonalIds } from "./normalise.ts";
import { csvRows, splitRow } from "./parse.ts";

async function* chunks(bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe("CNPJ", () => {
  it("accepts punctuation, checks both digits and takes an 8-character root as the company", () => {
    assert.deepEqual(parseCnpj("19.131.243/0001-97"), { id: "19131243000197" });
    assert.deepEqual(parseCnpj("19131243"), { id: "19131243" });
    assert.match((parseCnpj("19131243000198") as { error: string }).error, /check digits/);
    assert.match((parseCnpj("1913124300019") as { error: string }).error, /^id must be a CNPJ/);
  });

  it("accepts the alphanumeric CNPJ issued from July 2026 (Receita Federal's example 12.ABC.345/01DE-35)", () => {
    assert.deepEqual(parseCnpj("12.abc.345/01de-35"), { id: "12ABC34501DE35" });
    assert.equal(cnpjValid("12ABC34501DE36"), false);
  });
});

describe("Receita Federal rows", () => {
  it("splits the published form fast and odd rows carefully", () => {
    assert.deepEqual(splitRow('"00000000";"BANCO DO BRASIL SA";"2038"'), [
      "00000000",
      "BANCO DO BRASIL SA",
      "2038",
    ]);
    assert.deepEqual(splitRow('"1";"BAR ""DO ZE""";""'), ["1", 'BAR "DO ZE"', ""]);
    assert.deepEqual(
      splitRow('"1";"RUA "A" 10";"x"'),
      ["1", 'RUA "A" 10', "x"],
      "a stray quote is kept as text",
    );
    assert.deepEqual(splitRow('1;"A;B";'), ["1", "A;B", ""]);
  });

  it("reads Latin-1 bytes split anywhere, numbers lines, and resumes after a line", async () => {
    const bytes = Buffer.from('"1";"PÃO"\r\n"2";"AÇÚCAR"\n\n"4";"FIM"', "latin1");
    const rows = [];
    for await (const row of csvRows(chunks(bytes, 3))) rows.push(row);
    assert.deepEqual(rows, [
      { line: 1, fields: ["1", "PÃO"] },
      { line: 2, fields: ["2", "AÇÚCAR"] },
      { line: 4, fields: ["4", "FIM"] },
    ]);
    const resumed = [];
    for await (const row of csvRows(chunks(bytes, 5), 2)) resumed.push(row.line);
    assert.deepEqual(resumed, [4]);
  });

  it("reads dates, decimal commas, and takes personal ids out of sole traders' names", () => {
    assert.equal(rfDate("20131003"), "2013-10-03");
    assert.equal(rfDate("0"), null);
    assert.equal(rfDate("20230231"), null);
    assert.equal(rfDecimal("120000000000,00"), 120000000000);
    assert.equal(rfDecimal("1500,50"), 1500.5);
    assert.equal(withoutPersonalIds("MARIA EXEMPLO DA SILVA 12345678909"), "MARIA EXEMPLO DA SILVA");
    assert.equal(withoutPersonalIds("41.273.592 HELIO EXEMPLO"), "HELIO EXEMPLO");
  });
});
