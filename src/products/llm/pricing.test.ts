// Prices checked by hand. With LLM_INSTRUCTIONS "Be brief." (3 tokens), the instructions add 3 (framing) +
// 1 (role "system") + 3 = 7 tokens; every prompt adds 3 tokens priming the reply; each message adds
// 3 + 1 (its role) + its content's tokens. Then price = ceil(prompt × input rate + max_tokens × output
// rate), in millionths of a USD, + 5000 (0.005 USD).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AnyProduct } from "../../catalog/product.ts";
import { loadConfig } from "../../config.ts";
import { usdToAtomic } from "../../x402/shared/money.ts";
import { llmFamily } from "./index.ts";
import { DEFAULT_INSTRUCTIONS } from "./instructions.ts";
import { DEFAULT_INSTRUCTION_TOKENS, EMPTY_USER_PROMPT_TOKENS } from "./pricing.ts";
import { type EncodingName, tokenCounter } from "./tokens.ts";

function chatOf(env: Record<string, string> = {}): AnyProduct {
  const family = llmFamily(loadConfig({ LOG_LEVEL: "silent", UPSTREAMS: "replay", ...env }));
  const chat = family.products.find((p) => p.sku === "llm.chat");
  assert.ok(chat);
  return chat;
}

/** The price the 402 asks for this JSON body (validated exactly as the route validates it). */
function priceOf(chat: AnyProduct, body: unknown): string {
  const parsed = chat.body?.parse(JSON.parse(JSON.stringify(body)));
  assert.ok(typeof chat.price === "object");
  return chat.price.dynamic({ query: {}, body: parsed });
}

const brief = chatOf({ LLM_INSTRUCTIONS: "Be brief." });

describe("chat price, by hand", () => {
  it("one short message with the default max_tokens", () => {
    // prompt = 3 + 7 + (3 + 1 + 1 "Hello") = 15; 15 × 1.5 + 1024 × 3 = 3094.5 → 3095; + 5000
    assert.equal(priceOf(brief, { messages: [{ role: "user", content: "Hello" }] }), "0.008095");
  });

  it("a four-message conversation with max_tokens 100 (an exact amount, nothing to round)", () => {
    const body = {
      max_tokens: 100,
      messages: [
        { role: "system", content: "You are a helpful assistant." }, // 3 + 1 + 6 = 10
        { role: "user", content: "What is the capital of France?" }, // 3 + 1 + 7 = 11
        { role: "assistant", content: "Paris." }, // 3 + 1 + 2 = 6
        { role: "user", content: "Hello" }, // 3 + 1 + 1 = 5
      ],
    };
    // prompt = 3 + 7 + 32 = 42; 42 × 1.5 + 100 × 3 = 363; + 5000
    assert.equal(priceOf(brief, body), "0.005363");
  });

  it("the largest max_tokens", () => {
    // 15 × 1.5 + 32000 × 3 = 96022.5 → 96023; + 5000
    assert.equal(
      priceOf(brief, { max_tokens: 32000, messages: [{ role: "user", content: "Hello" }] }),
      "0.101023",
    );
  });

  it("a json_schema response format is billed as prompt tokens", () => {
    const body = {
      max_tokens: 10,
      messages: [{ role: "user", content: "Hello" }],
      response_format: {
        type: "json_schema",
        json_schema: { name: "city", schema: { type: "object", properties: { name: { type: "string" } } } },
      },
    };
    // prompt = 15 + 20 (the json_schema object as JSON text); 35 × 1.5 + 10 × 3 = 82.5 → 83; + 5000
    assert.equal(priceOf(brief, body), "0.005083");
    // text and json_object formats add nothing: 15 × 1.5 + 30 = 52.5 → 53; + 5000
    assert.equal(priceOf(brief, { ...body, response_format: { type: "json_object" } }), "0.005053");
  });

  it("each model's own rates", () => {
    const chat = chatOf({
      LLM_INSTRUCTIONS: "Be brief.",
      LLM_MODELS: JSON.stringify([{ id: "cheap", inputPerMillionUsd: "0.40", outputPerMillionUsd: "1.60" }]),
    });
    // 15 × 0.4 + 1000 × 1.6 = 1606; + 5000
    assert.equal(
      priceOf(chat, { model: "cheap", max_tokens: 1000, messages: [{ role: "user", content: "Hello" }] }),
      "0.006606",
    );
  });

  it("each model's own tokenizer", () => {
    const chat = chatOf({
      LLM_INSTRUCTIONS: "Be brief.",
      LLM_MODELS: JSON.stringify([
        { id: "new", encoding: "o200k_base" },
        { id: "old", encoding: "cl100k_base" },
      ]),
    });
    const body = { max_tokens: 1, messages: [{ role: "user", content: "こんにちは世界" }] };
    // o200k_base: 2 tokens of content; prompt 3 + 7 + 6 = 16; 16 × 1.5 + 3 = 27; + 5000
    assert.equal(priceOf(chat, { ...body, model: "new" }), "0.005027");
    // cl100k_base: 4 tokens of content; prompt 18; 18 × 1.5 + 3 = 30; + 5000
    assert.equal(priceOf(chat, { ...body, model: "old" }), "0.00503");
  });

  it("special-token text typed by a caller is counted as ordinary text, not refused", () => {
    // "<|endoftext|>" is 7 tokens of text; prompt 3 + 7 + 11 = 21; 31.5 + 3 = 34.5 → 35; + 5000
    assert.equal(
      priceOf(brief, { max_tokens: 1, messages: [{ role: "user", content: "<|endoftext|>" }] }),
      "0.005035",
    );
  });

  it("with the default instructions: about 860 tokens of them, on top of the caller's prompt", () => {
    const chat = chatOf();
    assert.ok(typeof chat.price === "object");
    // The default instructions are 859 tokens of text, 863 as a system message.
    assert.match(chat.price.formula, /about 863 tokens of service instructions/);
    // prompt = 3 + 863 + 5 = 871; 871 × 1.5 + 1024 × 3 = 4378.5 → 4379; + 5000
    assert.equal(priceOf(chat, { messages: [{ role: "user", content: "Hello" }] }), "0.009379");
  });

  it("declares the cheapest call as the minimum price", () => {
    assert.ok(typeof brief.price === "object");
    // one empty message, max_tokens 1: prompt 3 + 7 + 4 = 14; 21 + 3 = 24; + 5000
    assert.equal(brief.price.minUsd, "0.005024");
    assert.match(brief.price.formula, /prompt tokens × input rate \+ max_tokens × output rate \+ 0\.005 USD/);
  });
});

describe("chat price, determinism", () => {
  const body = {
    model: "gpt-4o-mini",
    max_tokens: 777,
    temperature: 0.3,
    messages: Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `Message ${i}: ${"a fairly long line of text that repeats ".repeat(20)}`,
    })),
  };

  it("the same body prices the same on the 402 and on the paid retry, every time", () => {
    const chat = chatOf();
    const prices = new Set(Array.from({ length: 5 }, () => priceOf(chat, body)));
    assert.equal(prices.size, 1);
    // A fresh process (a fresh family, cold caches) agrees.
    assert.deepEqual([...prices], [priceOf(chatOf(), body)]);
  });

  it("prices are whole atomic units that the x402 requirement carries exactly", () => {
    for (const maxTokens of [1, 2, 3, 333, 1024, 31999]) {
      const price = priceOf(brief, { max_tokens: maxTokens, messages: [{ role: "user", content: "Hello" }] });
      assert.match(price, /^0\.\d{1,6}$/);
      // 15 × 1.5 = 22.5 always rounds up to 23.
      assert.equal(usdToAtomic(price), BigInt(23 + 3 * maxTokens + 5000), String(maxTokens));
    }
  });
});

describe("the built-in instructions' token counts", () => {
  it("are what each encoding counts, so the catalog's price needs no encoding at start", () => {
    for (const [encoding, tokens] of Object.entries(DEFAULT_INSTRUCTION_TOKENS)) {
      const counted = tokenCounter(encoding as EncodingName).messageTokens({
        role: "system",
        content: DEFAULT_INSTRUCTIONS,
      });
      assert.equal(counted, tokens, encoding);
      const empty = tokenCounter(encoding as EncodingName).promptTokens([{ role: "user", content: "" }]);
      assert.equal(empty, EMPTY_USER_PROMPT_TOKENS, encoding);
    }
  });
});
