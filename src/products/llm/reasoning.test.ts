import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import type { AnyProduct } from "../../catalog/product.ts";
import { ConfigError, loadConfig } from "../../config.ts";
import { outcomeResponse } from "../../responses.ts";
import { ChatAnswer } from "./chat.ts";
import { type FakeProvider, openTestContext, startFakeProvider } from "./harness.test-helper.ts";
import { ModelsAnswer } from "./models.ts";
import { isOpenAiReasoningModel, loadLlmSettings } from "./settings.ts";
import { parseRetryAfter } from "./upstream.ts";

const payment = { payer: "0x0000000000000000000000000000000000000001", network: "eip155:8453" };

function productOf(ctx: FamilyTestContext, sku: string): AnyProduct {
  const found = ctx.family.products.find((p) => p.sku === sku);
  assert.ok(found, sku);
  return found;
}

function inputOf(chat: AnyProduct, body: unknown) {
  return { query: {}, body: chat.body?.parse(body) };
}

function settingsOf(env: Record<string, string>) {
  return loadLlmSettings(loadConfig({ LOG_LEVEL: "silent", ...env }));
}

describe("llm.chat on a reasoning model behind an OpenAI-like provider (recorded OpenAI answers)", () => {
  let ctx: FamilyTestContext;
  let provider: FakeProvider;
  before(async () => {
    provider = await startFakeProvider(["gpt-5-mini", "llama"]);
    provider.behaviour = { kind: "openai" };
    ctx = await openTestContext({
      UPSTREAMS: "live",
      LLM_BASE_URL: provider.baseUrl,
      LLM_API_KEY: "sk-test-key",
      // Today's LLM_MODELS format: nothing says gpt-5-mini is a reasoning model.
      LLM_MODELS: JSON.stringify([
        { id: "gpt-5-mini", maxOutputTokens: 32000, contextTokens: 400000 },
        { id: "llama", upstreamId: "meta-llama/Llama-3.1-8B-Instruct", encoding: "cl100k_base" },
        { id: "tuned", upstreamId: "house-model", tokenLimitParameter: "max_completion_tokens" },
        { id: "strict", upstreamId: "house-strict", refusedParameters: ["seed"] },
      ]),
    });
  });
  after(async () => {
    await ctx.close();
    await provider.close();
  });

  it("sends the answer cap as max_completion_tokens and answers 200 (the provider refuses max_tokens)", async () => {
    const chat = productOf(ctx, "llm.chat");
    const input = inputOf(chat, {
      model: "gpt-5-mini",
      messages: [{ role: "user", content: "What is 402?" }],
      max_tokens: 2000,
      temperature: 1,
    });
    assert.equal(await chat.check?.(input, ctx), undefined);
    const outcome = await chat.handle({ ...input, payment }, ctx);
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    const sent = provider.chatCalls().at(-1)?.body;
    assert.equal(sent?.max_completion_tokens, 2000);
    assert.equal("max_tokens" in (sent ?? {}), false);
    // The default temperature is what the model uses anyway: accepted, and not sent.
    assert.equal("temperature" in (sent ?? {}), false);
    const body = ChatAnswer.parse(outcome.body);
    assert.equal(body.choices[0]?.message.content, "402 means Payment Required.");
    assert.equal(body.x402.maxOutputTokens, 2000);
  });

  it("refuses before payment what the model refuses: temperature and top_p other than 1, stop", async () => {
    const chat = productOf(ctx, "llm.chat");
    const calls = provider.chatCalls().length;
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ temperature: 0.2 }, "temperature", /gpt-5-mini accepts only the default temperature \(1\)/],
      [{ top_p: 0.5 }, "top_p", /only the default top_p/],
      [{ stop: ["END"] }, "stop", /gpt-5-mini does not accept stop/],
    ];
    for (const [extra, parameter, message] of cases) {
      const refused = await chat.check?.(
        inputOf(chat, { model: "gpt-5-mini", messages: [{ role: "user", content: "Hi" }], ...extra }),
        ctx,
      );
      assert.equal(refused?.status, 400, parameter);
      assert.equal(refused?.body.parameter, parameter);
      assert.equal(refused?.body.charged, false);
      assert.match(String(refused?.body.message), message);
    }
    assert.equal(provider.chatCalls().length, calls, "nothing reached the provider");
    // The same fields are fine on a model that takes them.
    assert.equal(
      await chat.check?.(
        inputOf(chat, { model: "llama", messages: [{ role: "user", content: "Hi" }], temperature: 0.2 }),
        ctx,
      ),
      undefined,
    );
  });

  it("a refused field configured per model is a 400 too", async () => {
    const chat = productOf(ctx, "llm.chat");
    const refused = await chat.check?.(
      inputOf(chat, { model: "strict", messages: [{ role: "user", content: "Hi" }], seed: 3 }),
      ctx,
    );
    assert.equal(refused?.body.parameter, "seed");
  });

  it("other OpenAI-compatible servers get max_tokens unless the model says otherwise", async () => {
    const chat = productOf(ctx, "llm.chat");
    for (const [model, field] of [
      ["llama", "max_tokens"],
      ["tuned", "max_completion_tokens"],
    ] as const) {
      await chat.handle(
        {
          ...inputOf(chat, { model, messages: [{ role: "user", content: "Hi" }], max_tokens: 64 }),
          payment,
        },
        ctx,
      );
      const sent = provider.chatCalls().at(-1)?.body ?? {};
      assert.equal(sent[field], 64, model);
      assert.deepEqual(
        Object.keys(sent).filter((k) => k.startsWith("max_")),
        [field],
        model,
      );
    }
  });

  it("the provider's 429 is a 503 with its Retry-After, not charged", async () => {
    provider.behaviour = { kind: "openai", rateLimited: true };
    try {
      const chat = productOf(ctx, "llm.chat");
      const outcome = await chat.handle(
        { ...inputOf(chat, { model: "gpt-5-mini", messages: [{ role: "user", content: "Hi" }] }), payment },
        ctx,
      );
      assert.equal(outcome.status, 503);
      assert.equal(outcome.body.error, "upstream_busy");
      assert.equal(outcome.body.charged, false);
      assert.equal(outcome.body.retryAfterSec, 7);
      assert.match(String(outcome.body.message), /Rate limit reached for gpt-5-mini.*retry after 7 s/);
      assert.equal(outcomeResponse(outcome).headers.get("retry-after"), "7");
    } finally {
      provider.behaviour = { kind: "openai" };
    }
  });

  it("a 429 without Retry-After still says when to come back", async () => {
    provider.behaviour = { kind: "status", status: 429, body: '{"error":{"message":"Too many requests"}}' };
    try {
      const chat = productOf(ctx, "llm.chat");
      const outcome = await chat.handle(
        { ...inputOf(chat, { model: "llama", messages: [{ role: "user", content: "Hi" }] }), payment },
        ctx,
      );
      assert.equal(outcome.status, 503);
      assert.equal(outcome.body.retryAfterSec, 20);
    } finally {
      provider.behaviour = { kind: "openai" };
    }
  });

  it("the model list says which models reason within the answer budget and what they refuse", async () => {
    const outcome = await productOf(ctx, "llm.models").handle({ query: {}, body: undefined }, ctx);
    const body = ModelsAnswer.parse(outcome.body);
    const byId = new Map(body.models.map((m) => [m.id, m]));
    assert.equal(byId.get("gpt-5-mini")?.reasoning, true);
    assert.deepEqual(byId.get("gpt-5-mini")?.refusedParameters, ["temperature", "top_p", "stop"]);
    assert.match(String(byId.get("gpt-5-mini")?.answerBudget), /reasoning tokens plus the visible answer/);
    assert.equal(byId.get("llama")?.reasoning, false);
    assert.deepEqual(byId.get("llama")?.refusedParameters, []);
    assert.equal(byId.get("llama")?.answerBudget, "max_tokens caps the visible answer");
  });
});

describe("llm settings for reasoning models", () => {
  it("knows OpenAI's reasoning models by name, with or without a router's prefix", () => {
    for (const id of ["gpt-5", "gpt-5-mini", "gpt-5.1", "o1", "o3-mini", "o4-mini", "openai/gpt-5-nano"]) {
      assert.equal(isOpenAiReasoningModel(id), true, id);
    }
    for (const id of ["gpt-4.1-mini", "gpt-4o", "gpt-5-chat-latest", "llama3", "omni-1", "o"]) {
      assert.equal(isOpenAiReasoningModel(id), false, id);
    }
  });

  it("on OpenAI itself every model takes max_completion_tokens; the old format still loads", () => {
    const s = settingsOf({ LLM_MODELS: JSON.stringify([{ id: "gpt-4.1-mini" }, { id: "gpt-5-mini" }]) });
    assert.deepEqual(
      s.models.map((m) => [m.id, m.tokenLimitParameter, m.reasoning]),
      [
        ["gpt-4.1-mini", "max_completion_tokens", false],
        ["gpt-5-mini", "max_completion_tokens", true],
      ],
    );
  });

  it("the per-model fields can override the defaults, and bad values name the field", () => {
    const s = settingsOf({
      LLM_BASE_URL: "http://127.0.0.1:8000/v1",
      LLM_MODELS: JSON.stringify([
        { id: "r1", upstreamId: "deepseek-r1", reasoning: true, refusedParameters: [] },
        { id: "gpt-5-mini", tokenLimitParameter: "max_tokens" },
      ]),
    });
    assert.deepEqual(
      s.models.map((m) => [m.id, m.tokenLimitParameter, m.reasoning, m.refusedParameters]),
      [
        ["r1", "max_completion_tokens", true, []],
        ["gpt-5-mini", "max_tokens", true, ["temperature", "top_p", "stop"]],
      ],
    );
    for (const [entry, where] of [
      [{ id: "a", tokenLimitParameter: "max_output_tokens" }, /0\.tokenLimitParameter/],
      [{ id: "a", refusedParameters: ["messages"] }, /0\.refusedParameters/],
      [{ id: "a", reasoning: "yes" }, /0\.reasoning/],
    ] as const) {
      assert.throws(
        () => settingsOf({ LLM_MODELS: JSON.stringify([entry]) }),
        (error: unknown) => error instanceof ConfigError && where.test(error.message),
      );
    }
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-25T03:00:00Z");
    assert.equal(parseRetryAfter("7", now), 7);
    assert.equal(parseRetryAfter("0.3", now), 1);
    assert.equal(parseRetryAfter("Wed, 25 Nov 2026 03:01:30 GMT", now), 90);
    assert.equal(parseRetryAfter("soon", now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
  });
});
