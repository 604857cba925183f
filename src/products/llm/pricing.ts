// The price of one chat call, fixed before the model runs: prompt tokens (the caller's messages
// plus the service's instructions) × the input rate + max_tokens × the output rate + 0.005 USD, rounded up
// to USDC's atomic unit (0.000001 USD). Integer arithmetic throughout, so the 402 and the paid retry of the
// same body always ask for the same amount. Paid with `upto`, that price is the maximum, and the call is
// charged the same formula over the tokens the provider reports it used (usedAtomic), never more.
import { DEFAULT_MAX_BODY_BYTES } from "../../catalog/input.ts";
import { atomicToUsd, usdToAtomic } from "../../x402/shared/money.ts";
import { type ChatBody, MAX_MAX_TOKENS } from "./body.ts";
import type { LlmSettings, ModelSetting } from "./settings.ts";
import {
  type ChatMessage,
  type EncodingName,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  type TokenCounter,
  tokenCounter,
} from "./tokens.ts";

export const CALL_FEE_USD = "0.005";
const CALL_FEE_ATOMIC = usdToAtomic(CALL_FEE_USD);
const MILLION = 1_000_000n;

export interface Quote {
  model: ModelSetting;
  /** Every prompt token billed: framing, the service's instructions, the caller's messages, a JSON schema. */
  promptTokens: number;
  maxTokens: number;
  atomic: bigint;
  priceUsd: string;
}

/** Atomic USDC units (1 = 0.000001 USD) for a prompt and an answer cap at one model's rates. */
export function priceAtomic(model: ModelSetting, promptTokens: number, maxTokens: number): bigint {
  const millionths = BigInt(promptTokens) * model.inputE6 + BigInt(maxTokens) * model.outputE6;
  return (millionths + MILLION - 1n) / MILLION + CALL_FEE_ATOMIC;
}

/** The `exact` scheme's price, and `upto`'s maximum. */
export const EXACT_PRICE_RULE =
  `exact: prompt tokens × input rate + max_tokens × output rate + ${CALL_FEE_USD} USD, rounded up to 0.000001 USD, ` +
  "fixed before the model runs.";

/** What the `upto` scheme charges. */
export const UPTO_PRICE_RULE =
  "upto (where offered): that price is the maximum authorized; charged the provider's prompt_tokens × input rate + " +
  `completion_tokens (reasoning included) × output rate + ${CALL_FEE_USD} USD, rounded up, never above the maximum ` +
  "(the maximum if the provider reports no token counts).";

export function priceFormula(settings: LlmSettings, instructionsTokens: number): string {
  const d = settings.defaultModel;
  return (
    `${EXACT_PRICE_RULE} ${UPTO_PRICE_RULE} ` +
    `Prompt tokens are the caller's messages plus about ${instructionsTokens} tokens of service instructions ` +
    "(and a json_schema response format, if given), counted with the model's tokenizer. " +
    `Default model ${d.id}: ${d.inputPerMillionUsd} USD per million prompt tokens, ${d.outputPerMillionUsd} USD per million answer tokens; ` +
    "per-model rates at /v1/llm/models."
  );
}

/** The tokens a call used, as the provider reports them. */
export interface UsedTokens {
  promptTokens: number;
  /** Answer tokens, reasoning tokens included. */
  completionTokens: number;
  reasoningTokens?: number;
}

/** `upto`: the price of the tokens used, at the quote's model rates, never above the quote (the maximum). */
export function usedAtomic(quote: Quote, used: UsedTokens): bigint {
  const atomic = priceAtomic(quote.model, used.promptTokens, used.completionTokens);
  // biome-ignore lint/complexity/useMathMinMax: bigints; Math.min takes numbers
  return atomic < quote.atomic ? atomic : quote.atomic;
}

/**
 * The built-in instructions as a system message, in tokens, per encoding (checked against the encoder by
 * pricing.test.ts). With them the catalog's minimum price needs no encoding at start: an encoding is loaded
 * when the first chat body is priced (o200k_base alone is 73 MB of RSS).
 */
export const DEFAULT_INSTRUCTION_TOKENS: Record<EncodingName, number> = {
  o200k_base: 863,
  o200k_harmony: 863,
  cl100k_base: 864,
  p50k_base: 902,
  r50k_base: 902,
};

/**
 * A prompt of one empty user message: its framing, the role "user" (one token in every encoding) and the reply
 * priming; checked against the encoders by pricing.test.ts.
 */
export const EMPTY_USER_PROMPT_TOKENS = TOKENS_PER_MESSAGE + 1 + REPLY_PRIMING_TOKENS;

/** Prices bodies for every configured model; a body's quote is computed once per request object. */
export class Pricer {
  readonly settings: LlmSettings;
  private readonly byId: Map<string, ModelSetting>;
  /** The instructions as a system message, in tokens, per encoding. */
  private readonly instructionTokens = new Map<string, number>();
  private readonly quotes = new WeakMap<object, Quote>();

  constructor(settings: LlmSettings) {
    this.settings = settings;
    this.byId = new Map(settings.models.map((m) => [m.id, m]));
    if (settings.instructionsSource === "default") {
      for (const [encoding, tokens] of Object.entries(DEFAULT_INSTRUCTION_TOKENS)) {
        this.instructionTokens.set(encoding, tokens);
      }
    }
  }

  model(id: string): ModelSetting | undefined {
    return this.byId.get(id);
  }

  /** Tokens the service's own instructions add to every prompt of this model (framing included). */
  instructionsTokens(model: ModelSetting): number {
    let tokens = this.instructionTokens.get(model.encoding);
    if (tokens === undefined) {
      tokens = tokenCounter(model.encoding).messageTokens({
        role: "system",
        content: this.settings.instructions,
      });
      this.instructionTokens.set(model.encoding, tokens);
    }
    return tokens;
  }

  counter(model: ModelSetting): TokenCounter {
    return tokenCounter(model.encoding);
  }

  /** The messages sent upstream: the service's instructions first, then the caller's. */
  upstreamMessages(body: ChatBody): ChatMessage[] {
    return [
      { role: "system", content: this.settings.instructions },
      ...body.messages.map((m) => ({ role: m.role, content: m.content })),
    ];
  }

  promptTokens(model: ModelSetting, body: Pick<ChatBody, "messages" | "response_format">): number {
    const counter = this.counter(model);
    let total = counter.promptTokens(body.messages) + this.instructionsTokens(model);
    if (body.response_format?.type === "json_schema") {
      total += counter.count(JSON.stringify(body.response_format.json_schema));
    }
    return total;
  }

  /** The quote for a validated body whose model exists (the product's check refuses other models first). */
  quote(body: ChatBody): Quote {
    const known = this.quotes.get(body);
    if (known) return known;
    const model = this.byId.get(body.model);
    if (!model) throw new Error(`no such model "${body.model}" (checked before pricing)`);
    const promptTokens = this.promptTokens(model, body);
    const atomic = priceAtomic(model, promptTokens, body.max_tokens);
    const quote = { model, promptTokens, maxTokens: body.max_tokens, atomic, priceUsd: atomicToUsd(atomic) };
    this.quotes.set(body, quote);
    return quote;
  }

  /**
   * A bound no valid call can pass: a prompt of at most one token per byte of the largest body accepted, and the
   * largest max_tokens, on the dearest model.
   */
  maximumUsd(): string {
    let maximum = 0n;
    for (const model of this.settings.models) {
      const tokens = DEFAULT_MAX_BODY_BYTES + this.instructionsTokens(model);
      const atomic = priceAtomic(model, tokens, MAX_MAX_TOKENS);
      if (atomic > maximum) maximum = atomic;
    }
    return atomicToUsd(maximum);
  }

  /** The cheapest possible call: one empty message, max_tokens 1, on the cheapest model. */
  minimumUsd(): string {
    let minimum: bigint | undefined;
    for (const model of this.settings.models) {
      const tokens = EMPTY_USER_PROMPT_TOKENS + this.instructionsTokens(model);
      const atomic = priceAtomic(model, tokens, 1);
      if (minimum === undefined || atomic < minimum) minimum = atomic;
    }
    return atomicToUsd(minimum as bigint);
  }
}
