import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { REPLY_PRIMING_TOKENS, TOKENS_PER_MESSAGE, TokenCounter } from "./tokens.ts";

describe("TokenCounter", () => {
  it("counts text, messages and prompts with OpenAI's chat framing", () => {
    const counter = new TokenCounter("o200k_base");
    assert.equal(counter.count("What is the capital of France?"), 7);
    assert.equal(counter.messageTokens({ role: "user", content: "Hello" }), TOKENS_PER_MESSAGE + 1 + 1);
    assert.equal(
      counter.promptTokens([
        { role: "user", content: "Hello" },
        { role: "assistant", content: "Paris." },
      ]),
      REPLY_PRIMING_TOKENS + 5 + 6,
    );
  });

  it("gives the same counts from its cache, and keeps the cache within its character budget", () => {
    const counter = new TokenCounter("o200k_base", 2000);
    const texts = Array.from({ length: 20 }, (_, i) => `${i} `.repeat(150));
    const first = texts.map((t) => counter.count(t));
    const again = texts.map((t) => counter.count(t));
    assert.deepEqual(again, first);
    const fresh = new TokenCounter("o200k_base", 0);
    assert.deepEqual(
      texts.map((t) => fresh.count(t)),
      first,
    );
    const cached = counter as unknown as { cachedChars: number; cache: Map<string, number> };
    assert.ok(cached.cachedChars <= 2000, `${cached.cachedChars} characters cached`);
    // The most recently used texts are the ones kept.
    assert.ok(cached.cache.has(texts.at(-1)!));
    assert.ok(!cached.cache.has(texts[0]!));
  });
});
