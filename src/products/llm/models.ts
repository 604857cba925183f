// GET /v1/llm/models (free): the chat models on sale with their per-token rates, the per-call
// price formula and limits, and the state of the upstream (last availability probe).
import { z } from "zod";
import { DEFAULT_MAX_BODY_BYTES } from "../../catalog/input.ts";
import { ok, product } from "../../catalog/product.ts";
import { atomicToUsd } from "../../x402/shared/money.ts";
import { DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MAX_MESSAGES, MAX_STOP_SEQUENCES } from "./body.ts";
import {
  CALL_FEE_USD,
  EXACT_PRICE_RULE,
  type Pricer,
  priceAtomic,
  priceFormula,
  UPTO_PRICE_RULE,
} from "./pricing.ts";
import { type LlmSettings, upstreamConfigured } from "./settings.ts";
import {
  LLM_FAMILY,
  LLM_PROBE_WARMER,
  PROBE_EVERY_MS,
  PROBE_KEY,
  type UpstreamModelsProbe,
} from "./warmer.ts";

const Timestamp = z.iso.datetime().nullable();

export const ModelsAnswer = z.object({
  ok: z.literal(true),
  object: z.literal("list"),
  defaultModel: z.string(),
  models: z.array(
    z.object({
      id: z.string().describe("The name to pass as model"),
      description: z.string().nullable(),
      default: z.boolean(),
      encoding: z.string().describe("Tokenizer encoding the prompt is counted with (gpt-tokenizer)"),
      inputPerMillionUsd: z.string().describe("USD per million prompt tokens"),
      outputPerMillionUsd: z
        .string()
        .describe("USD per million answer tokens: of max_tokens (exact), of completion_tokens (upto)"),
      maxOutputTokens: z.int().positive().describe("Highest max_tokens this model accepts"),
      contextTokens: z.int().positive().nullable().describe("Prompt plus max_tokens must fit in this"),
      instructionsTokens: z.int().nonnegative().describe("Prompt tokens the service's instructions add"),
      reasoning: z
        .boolean()
        .describe(
          "A reasoning model: it thinks in hidden reasoning tokens that count in the answer budget (max_tokens) " +
            "and are paid as answer tokens, so a small max_tokens can end with finish_reason length and little or no text",
        ),
      answerBudget: z
        .string()
        .describe("What max_tokens covers for this model: the visible answer, or reasoning plus answer"),
      refusedParameters: z
        .array(z.string())
        .describe(
          "Body fields this model refuses (a 400 before payment); temperature and top_p set to 1 are accepted",
        ),
      minimumPriceUsd: z
        .string()
        .describe("Price of the smallest call: one empty message, max_tokens 1 (exact; upto's maximum)"),
      exampleDefaultPriceUsd: z
        .string()
        .describe("Price of a 100-token prompt with the default max_tokens (exact; upto's maximum)"),
      available: z
        .boolean()
        .nullable()
        .describe("Listed by the provider at the last probe; null before any probe"),
    }),
  ),
  pricing: z.object({
    formula: z.string(),
    callFeeUsd: z.string(),
    roundedUpTo: z.string().describe("Prices are rounded up to USDC's atomic unit"),
    fixedBeforeRun: z
      .literal(true)
      .describe("Under exact the price is fixed before the model runs; under upto it is the maximum"),
    schemes: z
      .object({ exact: z.string(), upto: z.string() })
      .describe("What each x402 scheme charges; the 402 offers upto where the facilitator settles it"),
  }),
  limits: z.object({
    messagesMin: z.int(),
    messagesMax: z.int(),
    maxTokensDefault: z.int(),
    maxTokensMax: z.int(),
    stopSequencesMax: z.int(),
    maxBodyBytes: z.int(),
  }),
  upstream: z.object({
    mode: z.enum(["live", "replay"]).describe("live: the provider; replay: recorded samples"),
    configured: z.boolean().describe("Credentials or a self-hosted provider are configured"),
    timeoutMs: z.int().describe("A call without an answer by then is a 502, not charged"),
    probe: z.object({
      name: z.string(),
      everyMs: z.int(),
      lastRunAt: Timestamp,
      lastOk: z.boolean().nullable(),
      lastSuccessAt: Timestamp,
      lastError: z.string().nullable(),
      lastErrorAt: Timestamp,
      checkedAt: Timestamp.describe("When the provider's model list was last read"),
      recordedSample: z.boolean(),
    }),
  }),
  generatedAt: z.iso.datetime(),
});

/** Tokens of the illustrative prompt priced in exampleDefaultPriceUsd (the caller's part only). */
const EXAMPLE_PROMPT_TOKENS = 100;

export function modelsProduct(settings: LlmSettings, pricer: Pricer) {
  return product({
    sku: "llm.models",
    method: "GET",
    path: "/v1/llm/models",
    summary: "Chat models on sale, per-token rates and the per-call price formula (free)",
    description:
      "Free. Every model POST /v1/llm/chat sells, with its tokenizer, per-million-token rates, answer and context " +
      "limits, the tokens the service's instructions add, and example prices; the price formula and limits; " +
      "and whether the provider listed each model at the last availability probe.",
    status: "live",
    tags: ["llm", "chat", "status"],
    price: "0",
    answer: ModelsAnswer,

    async handle(_input, ctx) {
      const [runs, probe] = await Promise.all([
        ctx.store.warmerRuns.status(LLM_PROBE_WARMER),
        ctx.store.cache.get<UpstreamModelsProbe>(LLM_FAMILY, PROBE_KEY),
      ]);
      const listed = probe ? new Set(probe.body.listed) : undefined;
      const models = settings.models.map((model) => {
        const instructionsTokens = pricer.instructionsTokens(model);
        const emptyPrompt = pricer.promptTokens(model, { messages: [{ role: "user", content: "" }] });
        return {
          id: model.id,
          description: model.description ?? null,
          default: model.id === settings.defaultModel.id,
          encoding: model.encoding,
          inputPerMillionUsd: model.inputPerMillionUsd,
          outputPerMillionUsd: model.outputPerMillionUsd,
          maxOutputTokens: Math.min(model.maxOutputTokens ?? MAX_MAX_TOKENS, MAX_MAX_TOKENS),
          contextTokens: model.contextTokens ?? null,
          instructionsTokens,
          reasoning: model.reasoning,
          answerBudget: model.reasoning
            ? "max_tokens caps reasoning tokens plus the visible answer: leave room for the reasoning (several thousand tokens for hard questions)"
            : "max_tokens caps the visible answer",
          refusedParameters: model.refusedParameters,
          minimumPriceUsd: atomicToUsd(priceAtomic(model, emptyPrompt, 1)),
          exampleDefaultPriceUsd: atomicToUsd(
            priceAtomic(model, emptyPrompt + EXAMPLE_PROMPT_TOKENS, DEFAULT_MAX_TOKENS),
          ),
          available: listed ? listed.has(model.upstreamId) : null,
        };
      });
      return ok({
        ok: true as const,
        object: "list" as const,
        defaultModel: settings.defaultModel.id,
        models,
        pricing: {
          formula: priceFormula(settings, pricer.instructionsTokens(settings.defaultModel)),
          callFeeUsd: CALL_FEE_USD,
          roundedUpTo: "0.000001",
          fixedBeforeRun: true as const,
          schemes: { exact: EXACT_PRICE_RULE, upto: UPTO_PRICE_RULE },
        },
        limits: {
          messagesMin: 1,
          messagesMax: MAX_MESSAGES,
          maxTokensDefault: DEFAULT_MAX_TOKENS,
          maxTokensMax: MAX_MAX_TOKENS,
          stopSequencesMax: MAX_STOP_SEQUENCES,
          maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
        },
        upstream: {
          mode: ctx.upstreams.mode,
          configured: upstreamConfigured(settings),
          timeoutMs: settings.timeoutMs,
          probe: {
            name: LLM_PROBE_WARMER,
            everyMs: PROBE_EVERY_MS,
            lastRunAt: runs.lastRunAt,
            lastOk: runs.lastOk,
            lastSuccessAt: runs.lastSuccessAt,
            lastError: runs.lastError,
            lastErrorAt: runs.lastErrorAt,
            checkedAt: probe?.fetchedAt ?? null,
            recordedSample: probe?.recordedSample ?? false,
          },
        },
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
