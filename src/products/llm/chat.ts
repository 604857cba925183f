// POST /v1/llm/chat: one chat completion from an OpenAI-compatible upstream, priced from the body before
// the model runs (pricing.ts), or, paid with `upto`, charged the tokens used up to that price. Upstream
// failures are 502, the provider's rate limit a 503 with Retry-After; never charged.
import { randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import {
  badRequest,
  type ErrorOutcome,
  type HandlerContext,
  type Outcome,
  ok,
  product,
  type RequestInput,
} from "../../catalog/product.ts";
import { errorOutcome } from "../../errors.ts";
import { errorText } from "../../json.ts";
import { atomicToUsd } from "../../x402/shared/money.ts";
import { type ChatBody, chatBodySchema, MAX_MAX_TOKENS } from "./body.ts";
import { type Pricer, priceFormula, type Quote, type UsedTokens, usedAtomic } from "./pricing.ts";
import {
  type LlmSettings,
  type ModelSetting,
  type RefusableParameter,
  upstreamConfigured,
} from "./settings.ts";
import { createChatCompletion, LlmUpstreamError, type UpstreamChatRequest } from "./upstream.ts";

/** The wait suggested when the provider's 429 carries no usable Retry-After. */
const DEFAULT_RETRY_AFTER_SEC = 20;

const RECORDED_NOTICE =
  "RECORDED SAMPLE, NOT A LIVE ANSWER: this completion was replayed from a stored sample of the upstream's " +
  "documented response shape (UPSTREAMS=replay); no model ran for this request.";

export const ChatAnswer = z.object({
  id: z
    .string()
    .regex(/^llm_[0-9a-f]{24}$/)
    .describe("Completion id, llm_ followed by 24 hex digits"),
  object: z.literal("chat.completion"),
  created: z.int().describe("Unix time (seconds) the completion was produced"),
  model: z.string().describe("The model that answered, as named in /v1/llm/models"),
  choices: z
    .array(
      z.object({
        index: z.int().nonnegative(),
        message: z.object({ role: z.literal("assistant"), content: z.string() }),
        finish_reason: z.string().describe("stop, length (max_tokens reached), content_filter…"),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.int().nonnegative(),
      completion_tokens: z.int().nonnegative(),
      total_tokens: z.int().nonnegative(),
    })
    .optional()
    .describe(
      "The provider's own token count, when it reports one: what upto bills; exact's price does not depend on it",
    ),
  x402: z
    .object({
      scheme: z
        .enum(["exact", "upto"])
        .optional()
        .describe(
          "How this call was paid: exact (the price fixed before the model ran) or upto (the tokens used)",
        ),
      priceUsd: z
        .string()
        .describe(
          "What this call cost, in USD (USDC): with exact the price fixed before the model ran; with upto the price of the tokens used",
        ),
      maxPriceUsd: z
        .string()
        .optional()
        .describe("The price of the prompt and max_tokens: exact's price, and the most upto can charge"),
      billedInputTokens: z
        .int()
        .nonnegative()
        .describe(
          "Prompt tokens billed: with exact as counted before the run, service instructions included; with upto the provider's prompt_tokens",
        ),
      billedOutputTokens: z
        .int()
        .nonnegative()
        .optional()
        .describe("Answer tokens billed: with exact max_tokens; with upto the provider's completion_tokens"),
      reasoningTokens: z
        .int()
        .nonnegative()
        .optional()
        .describe("Of the answer tokens, the model's hidden reasoning, when the provider reports it"),
      maxOutputTokens: z.int().positive().describe("max_tokens: the answer-length cap that was paid for"),
      callId: z.uuid().describe("Reference of this call in the operator's logs"),
    })
    .describe("Billing details of this call"),
  generatedAt: z.iso.datetime(),
  notice: z.string().optional().describe("Present when the answer is a recorded sample (UPSTREAMS=replay)"),
});

type ChatAnswerBody = z.infer<typeof ChatAnswer>;

function upstreamFailed(error: LlmUpstreamError): ErrorOutcome {
  // The provider's rate limit: the buyer may pay again once it passes, so say when (Retry-After).
  if (error.status === 429) {
    const retryAfterSec = error.retryAfterSec ?? DEFAULT_RETRY_AFTER_SEC;
    return errorOutcome(
      "upstream_busy",
      `The model provider is rate-limiting this service (${error.message}). Nothing was charged; retry after ${retryAfterSec} s.`,
      { reason: error.reason, upstreamStatus: 429, retryAfterSec },
    );
  }
  return errorOutcome(
    "upstream_unavailable",
    `The call to the model failed (${error.message}). Nothing was charged; the same request can be paid again.`,
    { reason: error.reason, ...(error.status !== undefined ? { upstreamStatus: error.status } : {}) },
    502,
  );
}

function notConfigured(): ErrorOutcome {
  return errorOutcome(
    "not_configured",
    "The chat endpoint has no model provider configured on this server (LLM_API_KEY is not set).",
  );
}

/** Pre-payment checks against the configured models: a 400 here costs the caller nothing. */
function checkAgainstModels(body: ChatBody, settings: LlmSettings, pricer: Pricer): ErrorOutcome | undefined {
  const model = pricer.model(body.model);
  if (!model) {
    const models = settings.models.map((m) => m.id);
    return badRequest("model", `model: unknown model "${body.model}"; choose one of ${models.join(", ")}`, {
      models,
    });
  }
  const cap = Math.min(model.maxOutputTokens ?? MAX_MAX_TOKENS, MAX_MAX_TOKENS);
  if (body.max_tokens > cap) {
    return badRequest("max_tokens", `max_tokens: ${model.id} answers at most ${cap} tokens`, {
      maxTokens: cap,
    });
  }
  const refused = refusedParameter(body, model);
  if (refused) return refused;
  const quote = pricer.quote(body);
  if (model.contextTokens !== undefined && quote.promptTokens + body.max_tokens > model.contextTokens) {
    return badRequest(
      "messages",
      `messages: the prompt is ${quote.promptTokens} tokens (service instructions included) and max_tokens is ${body.max_tokens}; ` +
        `${model.id} holds ${model.contextTokens} tokens in all. Shorten the conversation or lower max_tokens.`,
      { promptTokens: quote.promptTokens, contextTokens: model.contextTokens },
    );
  }
  if (
    body.response_format?.type === "json_object" &&
    !/json/i.test(settings.instructions) &&
    !body.messages.some((m) => /json/i.test(m.content))
  ) {
    return badRequest(
      "response_format",
      'response_format: json_object needs the word "JSON" in a message, telling the model what JSON to produce',
    );
  }
  return undefined;
}

/** temperature and top_p at this value are the sampling default, which every model accepts. */
const SAMPLING_DEFAULT = 1;

function sentAtDefault(field: RefusableParameter, value: unknown): boolean {
  return (field === "temperature" || field === "top_p") && value === SAMPLING_DEFAULT;
}

/** A field the model refuses would be a 400 from the provider after payment: refuse it here, free. */
function refusedParameter(body: ChatBody, model: ModelSetting): ErrorOutcome | undefined {
  for (const field of model.refusedParameters) {
    const value = body[field];
    if (value === undefined || sentAtDefault(field, value)) continue;
    const why =
      field === "temperature" || field === "top_p"
        ? `${model.id} accepts only the default ${field} (1); omit ${field}`
        : `${model.id} does not accept ${field}; omit it`;
    return badRequest(field, `${field}: ${why}`, { refusedParameters: model.refusedParameters });
  }
  return undefined;
}

/**
 * What a call is billed: the quote (exact, or upto without the provider's counts), or the tokens the provider
 * reports (upto). `used` is what the paywall settles under upto and signs into the receipt.
 */
function billing(quote: Quote, scheme: string | undefined, usage: UsedTokens | undefined) {
  const fixed = {
    atomic: quote.atomic,
    billedInputTokens: quote.promptTokens,
    billedOutputTokens: quote.maxTokens,
  };
  const used = usage && {
    amount: usedAtomic(quote, usage).toString(),
    counts: {
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      ...(usage.reasoningTokens !== undefined ? { reasoningTokens: usage.reasoningTokens } : {}),
    },
  };
  const billed =
    scheme === "upto" && usage && used
      ? {
          atomic: BigInt(used.amount),
          billedInputTokens: usage.promptTokens,
          billedOutputTokens: usage.completionTokens,
        }
      : fixed;
  return { billed, used };
}

function upstreamRequest(body: ChatBody, pricer: Pricer, model: ModelSetting): UpstreamChatRequest {
  const request: UpstreamChatRequest = {
    model: model.upstreamId,
    messages: pricer.upstreamMessages(body),
    [model.tokenLimitParameter]: body.max_tokens,
  };
  const refuses = (field: RefusableParameter, value: unknown) =>
    model.refusedParameters.includes(field) && sentAtDefault(field, value);
  if (body.temperature !== undefined && !refuses("temperature", body.temperature)) {
    request.temperature = body.temperature;
  }
  if (body.top_p !== undefined && !refuses("top_p", body.top_p)) request.top_p = body.top_p;
  if (body.stop !== undefined) request.stop = body.stop;
  if (body.seed !== undefined) request.seed = body.seed;
  if (body.response_format !== undefined) request.response_format = body.response_format;
  return request;
}

function chatDescription(instructionsTokens: number): string {
  return (
    "OpenAI-style chat completion, text only. JSON body: messages (1 to 500 {role, content}, role system, user " +
    "or assistant), optional model (see /v1/llm/models), max_tokens (default 1024, max 32000), temperature, " +
    "top_p, stop, seed, response_format. The price is fixed before the model runs from the prompt's tokens " +
    `(yours plus about ${instructionsTokens} tokens of service instructions) and max_tokens; the 402 states it ` +
    "and the paid retry of the same body costs exactly the same (scheme exact). Where the 402 also offers the " +
    "upto scheme, that price is only the maximum you authorize, and you are charged the tokens the model used " +
    "(prompt and answer, reasoning included), stated in PAYMENT-RESPONSE and the signed receipt. An upstream " +
    "failure is a 502 and is not charged; " +
    "the provider's rate limit is a 503 with Retry-After, not charged. A field a model refuses (reasoning models " +
    "take only the default temperature and top_p, and no stop) is a 400 before payment; see refusedParameters " +
    "in /v1/llm/models."
  );
}

type Completion = Awaited<ReturnType<typeof createChatCompletion>>;

/** Logs an upstream failure (not charged) and answers it as a 502 or 503. */
function upstreamFailure(ctx: HandlerContext, callId: string, quote: Quote, error: unknown): ErrorOutcome {
  const failure =
    error instanceof LlmUpstreamError ? error : new LlmUpstreamError("network", errorText(error));
  ctx.log.warn(
    {
      callId,
      model: quote.model.id,
      reason: failure.reason,
      status: failure.status,
      err: failure.message,
    },
    "llm upstream failed; not charged",
  );
  return upstreamFailed(failure);
}

/** The tokens the provider reports it used, when it reports them. */
function usedTokens(completion: Completion): UsedTokens | undefined {
  return (
    completion.usage && {
      promptTokens: completion.usage.prompt_tokens,
      completionTokens: completion.usage.completion_tokens,
      ...(completion.reasoningTokens !== undefined ? { reasoningTokens: completion.reasoningTokens } : {}),
    }
  );
}

interface Billed {
  scheme: "exact" | "upto";
  priceUsd: string;
  billed: ReturnType<typeof billing>["billed"];
  usage: UsedTokens | undefined;
}

function chatAnswerBody(quote: Quote, completion: Completion, bill: Billed, callId: string): ChatAnswerBody {
  const { scheme, priceUsd, billed, usage } = bill;
  const now = new Date();
  return {
    id: `llm_${randomBytes(12).toString("hex")}`,
    object: "chat.completion" as const,
    created: Math.floor(now.getTime() / 1000),
    model: quote.model.id,
    choices: completion.choices,
    ...(completion.usage ? { usage: completion.usage } : {}),
    x402: {
      scheme,
      priceUsd,
      maxPriceUsd: quote.priceUsd,
      billedInputTokens: billed.billedInputTokens,
      billedOutputTokens: billed.billedOutputTokens,
      ...(usage?.reasoningTokens !== undefined ? { reasoningTokens: usage.reasoningTokens } : {}),
      maxOutputTokens: quote.maxTokens,
      callId,
    },
    generatedAt: now.toISOString(),
    ...(completion.recordedSample ? { notice: RECORDED_NOTICE } : {}),
  };
}

async function answerChat(
  settings: LlmSettings,
  pricer: Pricer,
  { body, payment }: RequestInput<Record<string, never>, ChatBody>,
  ctx: HandlerContext,
): Promise<Outcome<ChatAnswerBody>> {
  const quote = pricer.quote(body);
  const callId = randomUUID();
  let completion: Completion;
  try {
    completion = await createChatCompletion(ctx, settings, upstreamRequest(body, pricer, quote.model));
  } catch (error) {
    return upstreamFailure(ctx, callId, quote, error);
  }
  const usage = usedTokens(completion);
  const scheme: "exact" | "upto" = payment?.scheme === "upto" ? "upto" : "exact";
  const { billed, used } = billing(quote, scheme, usage);
  const priceUsd = atomicToUsd(billed.atomic);
  ctx.log.info(
    {
      callId,
      model: quote.model.id,
      payer: payment?.payer ?? null,
      scheme,
      priceUsd,
      maxPriceUsd: quote.priceUsd,
      billedInputTokens: billed.billedInputTokens,
      billedOutputTokens: billed.billedOutputTokens,
      maxOutputTokens: quote.maxTokens,
      usage: completion.usage ?? null,
    },
    "llm chat answered",
  );
  const answer = chatAnswerBody(quote, completion, { scheme, priceUsd, billed, usage }, callId);
  return used ? { status: 200, body: answer, used } : ok(answer);
}

export function chatProduct(settings: LlmSettings, pricer: Pricer, replay: boolean) {
  const instructionsTokens = pricer.instructionsTokens(settings.defaultModel);
  return product<Record<string, never>, ChatBody, ChatAnswerBody>({
    sku: "llm.chat",
    method: "POST",
    path: "/v1/llm/chat",
    summary:
      "Chat completion from a language model: priced from the prompt and max_tokens, or (upto) by the tokens used",
    description: chatDescription(instructionsTokens),
    // Without credentials for the default provider nothing can be sold; /v1/llm/models says why.
    status: replay || upstreamConfigured(settings) ? "live" : "coming-soon",
    tags: ["llm", "chat"],
    price: {
      dynamic: ({ body }) => pricer.quote(body).priceUsd,
      minUsd: pricer.minimumUsd(),
      maxUsd: pricer.maximumUsd(),
      formula: priceFormula(settings, instructionsTokens),
      billedByUse: true,
    },
    body: chatBodySchema(settings.defaultModel.id),
    // Pricing the 402 tokenises the whole prompt.
    expensiveChallenge: true,
    answer: ChatAnswer,
    exampleBody: {
      model: settings.defaultModel.id,
      messages: [
        { role: "system", content: "Answer in one sentence." },
        { role: "user", content: "What does HTTP status 402 mean?" },
      ],
      max_tokens: 256,
    },

    async check({ body }, ctx) {
      if (ctx.upstreams.mode === "live" && !upstreamConfigured(settings)) return notConfigured();
      return checkAgainstModels(body, settings, pricer);
    },

    handle: (input, ctx) => answerChat(settings, pricer, input, ctx),
  });
}
