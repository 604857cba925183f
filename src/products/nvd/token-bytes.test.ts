import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_TOKEN_LENGTH, TokenTable } from "./token-bytes.ts";

/** Code point order, the order of the tokens' bytes. */
function byCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) as number);
  const y = [...b].map((c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++)
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
}

const tokens = [
  // Many neighbours sharing long prefixes, across many blocks of the front coding.
  ...Array.from({ length: 5000 }, (_, i) => `cve-2026-${i}`),
  ...Array.from({ length: 300 }, (_, i) => `${i}`),
  "überlauf",
  "überlaufen",
  "日本語",
  "😀x",
  "x😀",
  // Lone surrogates are kept apart from each other and from U+FFFD.
  "a\ud800b",
  "a\udc00b",
  "a\ufffdb",
  "a\ud83d\ude00b",
  "q".repeat(MAX_TOKEN_LENGTH),
  "ж".repeat(MAX_TOKEN_LENGTH),
];

function tableOf(words: string[]): { table: TokenTable; slots: number[] } {
  const table = new TokenTable();
  // Each token inside a longer text, as the builder passes them.
  const slots = words.map((word) => table.slotOf(` ${word}.`, 1, word.length + 1));
  return { table, slots };
}

describe("TokenTable and SortedTokens", () => {
  it("gives a token the same slot every time, new tokens the next slot", () => {
    const { table, slots } = tableOf(tokens);
    assert.deepEqual(
      slots,
      tokens.map((_, i) => i),
    );
    assert.equal(table.slotOf("cve-2026-17", 0, 11), tokens.indexOf("cve-2026-17"));
    assert.equal(table.slotOf("a\ud800b", 0, 3), tokens.indexOf("a\ud800b"));
    assert.equal(table.size, tokens.length);
  });

  it("sorts the tokens in code point order and finds each at its position", () => {
    const { table } = tableOf(tokens);
    const { tokens: sorted, positionOf } = table.sorted();
    const expected = [...tokens].sort(byCodePoints);
    assert.equal(sorted.size, tokens.length);
    tokens.forEach((token, slot) => {
      assert.equal(positionOf[slot], expected.indexOf(token), token);
      assert.equal(sorted.find(token), expected.indexOf(token), token);
    });
  });

  it("finds nothing for a token it does not hold", () => {
    const { tokens: sorted } = tableOf(tokens).table.sorted();
    for (const absent of [
      "",
      "cve-2026-",
      "cve-2026-5000",
      "cve-2026-00",
      "cve-2026-1x",
      "300",
      "überlau",
      "a\udbffb",
      "a\ud83db",
      "q".repeat(MAX_TOKEN_LENGTH - 1),
      "q".repeat(MAX_TOKEN_LENGTH + 1),
      "zzz",
    ]) {
      assert.equal(sorted.find(absent), -1, JSON.stringify(absent));
    }
  });

  it("holds no tokens when given none", () => {
    const { tokens: sorted } = new TokenTable().sorted();
    assert.equal(sorted.size, 0);
    assert.equal(sorted.find("a"), -1);
  });
});
