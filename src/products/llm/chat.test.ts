import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import type { AnyProduct } from "../../catalog/product.ts";
import { ChatAnswer } from "./chat.ts";
import { type FakeProvider, openTestContext, startFakeProvider } from "./harness.test-helper.ts";

function chatOf(ctx: FamilyTestContext): AnyProduct {
  const chat = ctx.family.products.find((p) => p.sku === "llm.chat");
  assert.ok(chat);
  return chat;
}

function inputOf(chat: AnyProduct, body: unknown) {
  return { query: {}, body: chat.body?.parse(body) };
}

const payment = { payer: "0x0000000000000000000000000000000000000001", network: "eip155:8453" };

describe("llm.chat over the recorded sample (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext({ LLM_INSTRUCTIONS: "Be brief." });
  });
  after(() => ctx.close());

  it("answers the recorded completion, marked as a sample, with this call's billing", async () => {
    const chat = chatOf(ctx);
    const input = inputOf(chat, { messages: [{ role: "user", content: "Hello" }] });
    assert.equal(await chat.check?.(input, ctx), undefined);
    const outcome = await chat.handle({ ...input, payment }, ctx);
    assert.equal(outcome.status, 200);
    const body = ChatAnswer.parse(outcome.body);
    assert.deepEqual(Object.keys(body), [
      "id",
      "object",
      "created",
      "model",
      "choices",
      "usage",
      "x402",
      "generatedAt",
      "notice",
    ]);
    assert.match(body.id, /^llm_[0-9a-f]{24}$/);
    assert.equal(body.object, "chat.completion");
    assert.equal(body.model, "gpt-4.1-mini");
    assert.match(body.choices[0]!.message.content, /^HTTP 402 Payment Required/);
    assert.equal(body.choices[0]?.finish_reason, "stop");
    // The hand-checked price of this body (pricing.test.ts): 15 prompt tokens, max_tokens 1024.
    assert.deepEqual(
      { ...body.x402, callId: "-" },
      {
        scheme: "exact",
        priceUsd: "0.008095",
        maxPriceUsd: "0.008095",
        billedInputTokens: 15,
        billedOutputTokens: 1024,
        reasoningTokens: 0,
        maxOutputTokens: 1024,
        callId: "-",
      },
    );
    // Paid with upto: the recording's usage (905 prompt, 41 completion tokens) at the same rates,
    // 905 × 1.5 + 41 × 3 = 1480.5 → 1481; + 5000. The paywall settles `used`.
    const byUse = await chat.handle({ ...input, payment: { ...payment, scheme: "upto" } }, ctx);
    assert.equal(byUse.status, 200);
    const metered = ChatAnswer.parse(byUse.body).x402;
    assert.deepEqual(
      [
        metered.scheme,
        metered.priceUsd,
        metered.maxPriceUsd,
        metered.billedInputTokens,
        metered.billedOutputTokens,
      ],
      ["upto", "0.006481", "0.008095", 905, 41],
    );
    assert.deepEqual((byUse as { used?: unknown }).used, {
      amount: "6481",
      counts: { promptTokens: 905, completionTokens: 41, reasoningTokens: 0 },
    });
    assert.match(body.notice ?? "", /RECORDED SAMPLE, NOT A LIVE ANSWER.*UPSTREAMS=replay/);
    // Every call gets its own ids.
    const second = ChatAnswer.parse((await chat.handle({ ...input, payment }, ctx)).body);
    assert.notEqual(second.id, body.id);
    assert.notEqual(second.x402.callId, body.x402.callId);
  });
});

describe("llm.chat against an OpenAI-compatible provider", () => {
  let ctx: FamilyTestContext;
  let provider: FakeProvider;
  before(async () => {
    provider = await startFakeProvider();
    ctx = await openTestContext({
      UPSTREAMS: "live",
      LLM_BASE_URL: provider.baseUrl,
      LLM_API_KEY: "sk-test-key",
      LLM_INSTRUCTIONS: "Be brief. Answer JSON when asked.",
      LLM_TIMEOUT_MS: "1000",
      LLM_MODELS: JSON.stringify([
        {
          id: "house",
          upstreamId: "vendor/house-model-v2",
          encoding: "cl100k_base",
          maxOutputTokens: 4096,
          contextTokens: 8192,
        },
        { id: "plain", upstreamId: "plain-model" },
      ]),
    });
  });
  after(async () => {
    await ctx.close();
    await provider.close();
  });

  it("sends the service's instructions first, the upstream model name, max_tokens as the cap and the options", async () => {
    provider.behaviour = { kind: "answer", content: "Bonjour.", finishReason: "length" };
    const chat = chatOf(ctx);
    const outcome = await chat.handle(
      {
        ...inputOf(chat, {
          messages: [
            { role: "system", content: "Answer in French." },
            { role: "user", content: "Hello" },
          ],
          max_tokens: 50,
          temperature: 0.2,
          top_p: 0.9,
          stop: "END",
          seed: 7,
          response_format: { type: "json_object" },
        }),
        payment,
      },
      ctx,
    );
    assert.equal(outcome.status, 200);
    const sent = provider.chatCalls().at(-1);
    assert.equal(sent?.method, "POST");
    assert.equal(sent?.authorization, "Bearer sk-test-key");
    assert.deepEqual(sent?.body, {
      model: "vendor/house-model-v2",
      messages: [
        { role: "system", content: "Be brief. Answer JSON when asked." },
        { role: "system", content: "Answer in French." },
        { role: "user", content: "Hello" },
      ],
      max_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      stop: ["END"],
      seed: 7,
      response_format: { type: "json_object" },
    });
    const body = ChatAnswer.parse(outcome.body);
    assert.equal(body.model, "house");
    assert.deepEqual(body.choices, [
      { index: 0, message: { role: "assistant", content: "Bonjour." }, finish_reason: "length" },
    ]);
    assert.deepEqual(body.usage, { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 });
    assert.equal(body.x402.maxOutputTokens, 50);
    assert.equal(body.notice, undefined);
  });

  it("sends only the options the caller gave", async () => {
    provider.behaviour = { kind: "answer", content: "ok" };
    const chat = chatOf(ctx);
    await chat.handle(
      { ...inputOf(chat, { model: "plain", messages: [{ role: "user", content: "Hi" }] }), payment },
      ctx,
    );
    assert.deepEqual(Object.keys(provider.chatCalls().at(-1)?.body ?? {}), [
      "model",
      "messages",
      "max_tokens",
    ]);
    assert.equal(provider.chatCalls().at(-1)?.body?.max_tokens, 1024);
  });

  it("turns every upstream failure but a rate limit (reasoning.test.ts) into a 502 that is not charged and says what happened", async () => {
    const chat = chatOf(ctx);
    const input = {
      ...inputOf(chat, { model: "plain", messages: [{ role: "user", content: "Hi" }] }),
      payment,
    };
    const cases: Array<[FakeProvider["behaviour"], string, RegExp, number | undefined]> = [
      [
        { kind: "status", status: 500, body: '{"error":{"message":"The server had an error"}}' },
        "http_error",
        /HTTP 500: The server had an error/,
        500,
      ],
      [
        {
          kind: "status",
          status: 401,
          body: '{"error":{"message":"Incorrect API key provided: sk-test-***"}}',
        },
        "http_error",
        /refused the service's credentials/,
        401,
      ],
      [{ kind: "garbage" }, "malformed_answer", /not JSON/, 200],
      [
        { kind: "status", status: 200, body: '{"object":"chat.completion","choices":[]}' },
        "malformed_answer",
        /choices/,
        200,
      ],
      [{ kind: "hang", ms: 2500 }, "timeout", /no answer within 1 s/, undefined],
    ];
    for (const [behaviour, reason, message, upstreamStatus] of cases) {
      provider.behaviour = behaviour;
      const outcome = await chat.handle(input, ctx);
      assert.equal(outcome.status, 502, reason);
      assert.equal(outcome.body.error, "upstream_unavailable");
      assert.equal(outcome.body.charged, false);
      assert.equal(outcome.body.reason, reason);
      assert.match(String(outcome.body.message), message);
      assert.match(String(outcome.body.message), /Nothing was charged/);
      assert.equal(outcome.body.upstreamStatus, upstreamStatus);
      assert.doesNotMatch(JSON.stringify(outcome.body), /sk-test/);
    }
  });

  it("a provider that cannot be reached is a 502 too", async () => {
    const closed = await startFakeProvider();
    await closed.close();
    const offline = await openTestContext({
      UPSTREAMS: "live",
      LLM_BASE_URL: closed.baseUrl,
      LLM_API_KEY: "k",
    });
    try {
      const chat = chatOf(offline);
      const outcome = await chat.handle(
        { ...inputOf(chat, { messages: [{ role: "user", content: "Hi" }] }), payment },
        offline,
      );
      assert.equal(outcome.status, 502);
      assert.equal(outcome.body.reason, "network");
      assert.match(String(outcome.body.message), /could not reach the model provider \(ECONNREFUSED\)/);
    } finally {
      await offline.close();
    }
  });

  it("refuses before payment: an unknown model (listing the models), an over-long answer cap, an over-full context", async () => {
    const chat = chatOf(ctx);
    const unknown = await chat.check?.(
      inputOf(chat, { model: "gpt-5", messages: [{ role: "user", content: "Hi" }] }),
      ctx,
    );
    assert.equal(unknown?.status, 400);
    assert.equal(unknown?.body.parameter, "model");
    assert.deepEqual(unknown?.body.models, ["house", "plain"]);
    assert.match(String(unknown?.body.message), /unknown model "gpt-5"; choose one of house, plain/);

    const cap = await chat.check?.(
      inputOf(chat, { model: "house", max_tokens: 5000, messages: [{ role: "user", content: "Hi" }] }),
      ctx,
    );
    assert.equal(cap?.body.parameter, "max_tokens");
    assert.match(String(cap?.body.message), /house answers at most 4096 tokens/);

    const long = "word ".repeat(4500); // 4500 tokens in cl100k_base
    const full = await chat.check?.(
      inputOf(chat, { model: "house", max_tokens: 4000, messages: [{ role: "user", content: long }] }),
      ctx,
    );
    assert.equal(full?.status, 400);
    assert.equal(full?.body.parameter, "messages");
    assert.equal(full?.body.contextTokens, 8192);
    assert.match(String(full?.body.message), /holds 8192 tokens in all/);

    assert.equal(
      await chat.check?.(
        inputOf(chat, { model: "house", max_tokens: 3000, messages: [{ role: "user", content: long }] }),
        ctx,
      ),
      undefined,
    );
    assert.equal(provider.chatCalls().filter((c) => c.body?.model === "gpt-5").length, 0);
  });

  it("refuses json_object when no message mentions JSON (the provider would refuse it after payment)", async () => {
    const plain = await openTestContext({
      UPSTREAMS: "live",
      LLM_API_KEY: "k",
      LLM_INSTRUCTIONS: "Be brief.",
    });
    try {
      const chat = chatOf(plain);
      const body = {
        messages: [{ role: "user", content: "List three colours." }],
        response_format: { type: "json_object" },
      };
      const refused = await chat.check?.(inputOf(chat, body), plain);
      assert.equal(refused?.body.parameter, "response_format");
      const fixed = { ...body, messages: [{ role: "user", content: "List three colours as a JSON array." }] };
      assert.equal(await chat.check?.(inputOf(chat, fixed), plain), undefined);
    } finally {
      await plain.close();
    }
  });
});

describe("llm.chat without a provider configured", () => {
  it("is listed as coming soon and answers 503 before payment", async () => {
    const ctx = await openTestContext({ UPSTREAMS: "live" });
    try {
      const chat = chatOf(ctx);
      assert.equal(chat.status, "coming-soon");
      const outcome = await chat.check?.(inputOf(chat, { messages: [{ role: "user", content: "Hi" }] }), ctx);
      assert.equal(outcome?.status, 503);
      assert.equal(outcome?.body.error, "not_configured");
      assert.equal(outcome?.body.charged, false);
    } finally {
      await ctx.close();
    }
  });
});
