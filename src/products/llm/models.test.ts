import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { runWarmerRecorded } from "../../../test/family-harness.ts";
import type { AnyProduct } from "../../catalog/product.ts";
import { openTestContext, startFakeProvider } from "./harness.test-helper.ts";
import { ModelsAnswer } from "./models.ts";

function productOf(ctx: FamilyTestContext, sku: string): AnyProduct {
  const found = ctx.family.products.find((p) => p.sku === sku);
  assert.ok(found, sku);
  return found;
}

async function modelsAnswer(ctx: FamilyTestContext) {
  const outcome = await productOf(ctx, "llm.models").handle({ query: {}, body: undefined }, ctx);
  assert.equal(outcome.status, 200);
  return ModelsAnswer.parse(outcome.body);
}

describe("llm.models", () => {
  it("is free and lists the models on sale with their rates, limits and example prices", async () => {
    const ctx = await openTestContext({ LLM_INSTRUCTIONS: "Be brief." });
    try {
      const models = productOf(ctx, "llm.models");
      assert.equal(models.price, "0");
      assert.equal(models.path, "/v1/llm/models");
      const body = await modelsAnswer(ctx);
      assert.equal(body.defaultModel, "gpt-4.1-mini");
      assert.deepEqual(
        body.models.map((m) => [
          m.id,
          m.default,
          m.inputPerMillionUsd,
          m.outputPerMillionUsd,
          m.maxOutputTokens,
        ]),
        [
          ["gpt-4.1-mini", true, "1.50", "3.00", 32000],
          ["gpt-4o-mini", false, "1.50", "3.00", 16384],
        ],
      );
      const first = body.models[0]!;
      assert.equal(first.encoding, "o200k_base");
      assert.equal(first.instructionsTokens, 7);
      // One empty message, max_tokens 1: prompt 14; 21 + 3 = 24; + 5000.
      assert.equal(first.minimumPriceUsd, "0.005024");
      // 100 tokens of the caller's on top: prompt 114; 171 + 3072 = 3243; + 5000.
      assert.equal(first.exampleDefaultPriceUsd, "0.008243");
      assert.equal(first.available, null);
      assert.equal(body.pricing.callFeeUsd, "0.005");
      assert.match(body.pricing.formula, /max_tokens × output rate \+ 0\.005 USD/);
      assert.deepEqual(body.limits, {
        messagesMin: 1,
        messagesMax: 500,
        maxTokensDefault: 1024,
        maxTokensMax: 32000,
        stopSequencesMax: 4,
        maxBodyBytes: 262144,
      });
      assert.equal(body.upstream.mode, "replay");
      assert.equal(body.upstream.probe.lastRunAt, null);
    } finally {
      await ctx.close();
    }
  });

  it("after the probe has read the recorded model list: every default model is available", async () => {
    const ctx = await openTestContext();
    try {
      const counts = await runWarmerRecorded(ctx.family.warmers![0]!, ctx);
      assert.deepEqual(counts, { listed: 6, onSale: 2, missing: [] });
      const body = await modelsAnswer(ctx);
      assert.deepEqual(
        body.models.map((m) => m.available),
        [true, true],
      );
      assert.equal(body.upstream.probe.lastOk, true);
      assert.equal(body.upstream.probe.recordedSample, true);
      assert.ok(body.upstream.probe.checkedAt);
    } finally {
      await ctx.close();
    }
  });

  it("the probe asks the live provider with the key and flags models it does not list", async () => {
    const provider = await startFakeProvider(["gpt-4.1-mini"]);
    const ctx = await openTestContext({
      UPSTREAMS: "live",
      LLM_BASE_URL: provider.baseUrl,
      LLM_API_KEY: "sk-probe",
    });
    try {
      const counts = await runWarmerRecorded(ctx.family.warmers![0]!, ctx);
      assert.deepEqual(counts, { listed: 1, onSale: 2, missing: ["gpt-4o-mini"] });
      assert.equal(provider.calls[0]?.path, "/models");
      assert.equal(provider.calls[0]?.authorization, "Bearer sk-probe");
      const body = await modelsAnswer(ctx);
      assert.deepEqual(
        body.models.map((m) => [m.id, m.available]),
        [
          ["gpt-4.1-mini", true],
          ["gpt-4o-mini", false],
        ],
      );
      assert.equal(body.upstream.configured, true);
      assert.equal(body.upstream.probe.recordedSample, false);
    } finally {
      await ctx.close();
      await provider.close();
    }
  });

  it("a refused probe is recorded as a failure without the provider's URL or message", async () => {
    const provider = await startFakeProvider();
    provider.modelsRefusal = {
      status: 401,
      body: '{"error":{"message":"Incorrect API key provided: sk-bad***"}}',
    };
    const ctx = await openTestContext({
      UPSTREAMS: "live",
      LLM_BASE_URL: provider.baseUrl,
      LLM_API_KEY: "sk-bad",
    });
    try {
      await assert.rejects(runWarmerRecorded(ctx.family.warmers![0]!, ctx), /HTTP 401: credentials refused/);
      const body = await modelsAnswer(ctx);
      assert.equal(body.upstream.probe.lastOk, false);
      assert.equal(body.upstream.probe.lastError, "GET /models answered HTTP 401: credentials refused");
      assert.deepEqual(
        body.models.map((m) => m.available),
        [null, null],
      );
    } finally {
      await ctx.close();
      await provider.close();
    }
  });

  it("the probe skips quietly when the default provider has no key", async () => {
    const ctx = await openTestContext({ UPSTREAMS: "live" });
    try {
      const counts = await runWarmerRecorded(ctx.family.warmers![0]!, ctx);
      assert.deepEqual(counts, { skipped: "LLM_API_KEY is not set for the default upstream" });
      assert.equal((await modelsAnswer(ctx)).upstream.configured, false);
    } finally {
      await ctx.close();
    }
  });
});
