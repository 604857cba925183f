// readKeyset on its own: what it refuses, and rows repeated in an answer kept once.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type KeysetRead, readKeyset, type SparqlAnswer, type SparqlBinding } from "./sparql.ts";

const row = (key: string, title: string): SparqlBinding => ({
  k: { type: "literal", value: key },
  title: { type: "literal", value: title },
});
const READ: KeysetRead = {
  key: "k",
  pageKeys: 2,
  pageQuery: (after) => `page after ${after}`,
  countQuery: "count",
  rowCap: 10,
  maxPages: 5,
};

/** Answers the queries in turn; the count query with `n`. */
function endpoint(pages: SparqlBinding[][], n: string) {
  const asked: string[] = [];
  const select = async (query: string): Promise<SparqlAnswer> => {
    asked.push(query);
    const bindings = query === "count" ? [{ n: { type: "literal", value: n } }] : (pages.shift() ?? []);
    return { bindings, url: "https://sparql.test/", recordedSample: false };
  };
  return { select, asked };
}

describe("readKeyset", () => {
  it("pages by the last key, keeps a repeated row once and a key's distinct rows all", async () => {
    const { select, asked } = endpoint(
      [[row("a", "A"), row("a", "A"), row("b", "B1"), row("b", "B2"), row("b", "B1")], [row("c", "C")]],
      "3",
    );
    const read = await readKeyset(select, READ);
    assert.deepEqual(asked, ["page after ", "page after b", "count"]);
    assert.deepEqual(
      [...read.groups].map(([key, rows]) => [key, rows.map((r) => r.title?.value)]),
      [
        ["a", ["A"]],
        ["b", ["B1", "B2"]],
        ["c", ["C"]],
      ],
    );
    assert.deepEqual([read.pages, read.upstreamCount], [2, 3]);
  });

  it("refuses a read short of the count, a page at the row cap, keys not after the last, no count", async () => {
    await assert.rejects(
      readKeyset(endpoint([[row("a", "A")]], "2").select, READ),
      /read 1 of the 2 .*short/,
    );
    const full = Array.from({ length: 10 }, (_, i) => row(`k${i}`, "x"));
    await assert.rejects(readKeyset(endpoint([full], "10").select, READ), /the endpoint's cap/);
    const backwards = [[row("a", "A"), row("b", "B")], [row("a", "A")]];
    await assert.rejects(readKeyset(endpoint(backwards, "2").select, READ), /key a, not after b/);
    await assert.rejects(readKeyset(endpoint([[row("a", "A")]], "many").select, READ), /gave no count/);
  });
});
