// The llm family's configuration from the environment, validated when the family is built: a bad value
// is a ConfigError naming the variable.
import fs from "node:fs";
import { z } from "zod";
import { type Config, ConfigError, envInteger, envString, upstreamBaseUrl } from "../../config.ts";
import { DEFAULT_INSTRUCTIONS } from "./instructions.ts";
import { ENCODINGS, type EncodingName } from "./tokens.ts";

/** The documented production base URL of the default upstream (OpenAI's chat-completions API). */
export const DEFAULT_LLM_BASE_URL = "https://api.openai.com/v1";
/** Spec 4.8: 1.50 USD per million prompt tokens, 3.00 per million tokens of max_tokens. */
const DEFAULT_INPUT_PER_MILLION_USD = "1.50";
const DEFAULT_OUTPUT_PER_MILLION_USD = "3.00";
const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_INSTRUCTIONS_CHARS = 100_000;

export interface ModelSetting {
  /** The name buyers use (`model` in the body). */
  id: string;
  /** The name sent to the upstream. */
  upstreamId: string;
  encoding: EncodingName;
  description: string | undefined;
  /** USD per million tokens, as shown in the model list ("1.50"). */
  inputPerMillionUsd: string;
  outputPerMillionUsd: string;
  /** The same rates in millionths of a USD per million tokens, i.e. millionths of an atomic unit per token. */
  inputE6: bigint;
  outputE6: bigint;
  /** The model's own answer-length limit, if lower than the spec's 32000. */
  maxOutputTokens: number | undefined;
  /** The model's context window (prompt plus answer), if known. */
  contextTokens: number | undefined;
  /** The request field the upstream takes the answer cap in (the buyer always says max_tokens). */
  tokenLimitParameter: TokenLimitParameter;
  /** A reasoning model: its hidden reasoning tokens are spent out of the answer cap. */
  reasoning: boolean;
  /** Body fields this model refuses; a buyer who sends one gets a 400 before paying. */
  refusedParameters: RefusableParameter[];
}

const TOKEN_LIMIT_PARAMETERS = ["max_tokens", "max_completion_tokens"] as const;
type TokenLimitParameter = (typeof TOKEN_LIMIT_PARAMETERS)[number];
/** Optional body fields a model may refuse; temperature and top_p at their default (1) are dropped instead. */
const REFUSABLE_PARAMETERS = ["temperature", "top_p", "stop", "seed", "response_format"] as const;
export type RefusableParameter = (typeof REFUSABLE_PARAMETERS)[number];
/**
 * OpenAI's reasoning models (o1, o3, o4-mini, gpt-5 and its minor versions; not gpt-5-chat): they answer 400
 * `unsupported_parameter` to max_tokens, accept only the default temperature and top_p, and refuse stop.
 * The name may carry a provider prefix ("openai/gpt-5-mini" on routers).
 */
const OPENAI_REASONING_MODEL = /^(?:o[1-9](?:-|$)|gpt-5(?![^/]*-chat))/i;
const REASONING_REFUSES: RefusableParameter[] = ["temperature", "top_p", "stop"];

export function isOpenAiReasoningModel(upstreamId: string): boolean {
  return OPENAI_REASONING_MODEL.test(upstreamId.slice(upstreamId.lastIndexOf("/") + 1));
}

export interface LlmSettings {
  models: ModelSetting[];
  defaultModel: ModelSetting;
  instructions: string;
  instructionsSource: "default" | "LLM_INSTRUCTIONS" | "LLM_INSTRUCTIONS_FILE";
  timeoutMs: number;
  apiKey: string | undefined;
  baseUrl: string;
}

const DEFAULT_MODELS = [
  {
    id: "gpt-4.1-mini",
    upstreamId: "gpt-4.1-mini",
    encoding: "o200k_base",
    description: "OpenAI GPT-4.1 mini: fast general-purpose model with a long context window",
    inputPerMillionUsd: DEFAULT_INPUT_PER_MILLION_USD,
    outputPerMillionUsd: DEFAULT_OUTPUT_PER_MILLION_USD,
    maxOutputTokens: 32_768,
    contextTokens: 1_047_576,
  },
  {
    id: "gpt-4o-mini",
    upstreamId: "gpt-4o-mini",
    encoding: "o200k_base",
    description: "OpenAI GPT-4o mini: small, inexpensive model for simple tasks",
    inputPerMillionUsd: DEFAULT_INPUT_PER_MILLION_USD,
    outputPerMillionUsd: DEFAULT_OUTPUT_PER_MILLION_USD,
    maxOutputTokens: 16_384,
    contextTokens: 128_000,
  },
];

const RATE = /^(\d{1,6})(?:\.(\d{1,6}))?$/;

/** "1.5" → 1_500_000n (millionths); at most 6 decimals, so prices stay exact in USDC's atomic units. */
export function rateToE6(raw: string): bigint | undefined {
  const match = RATE.exec(raw);
  if (!match) return undefined;
  return BigInt(match[1] as string) * 1_000_000n + BigInt((match[2] ?? "").padEnd(6, "0"));
}

/** 1_500_000n → "1.50": at least two decimals, no trailing zeros beyond them. */
export function formatRate(e6: bigint): string {
  const whole = e6 / 1_000_000n;
  const fraction = (e6 % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${whole}.${fraction}`;
}

const Rate = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const e6 = rateToE6(String(value).trim());
  if (e6 === undefined) {
    ctx.addIssue({
      code: "custom",
      message: `must be a non-negative USD amount per million tokens with at most 6 decimals, got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  }
  return e6;
});

const ModelEntry = z.strictObject({
  id: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/,
      "must be 1 to 100 letters, digits or . _ : / - (starting with a letter or digit)",
    ),
  upstreamId: z.string().trim().min(1).max(200).optional(),
  encoding: z.enum(ENCODINGS).default("o200k_base"),
  description: z.string().max(300).optional(),
  inputPerMillionUsd: Rate.prefault(DEFAULT_INPUT_PER_MILLION_USD),
  outputPerMillionUsd: Rate.prefault(DEFAULT_OUTPUT_PER_MILLION_USD),
  maxOutputTokens: z.int().min(1).max(10_000_000).optional(),
  contextTokens: z.int().min(1).max(100_000_000).optional(),
  tokenLimitParameter: z.enum(TOKEN_LIMIT_PARAMETERS).optional(),
  reasoning: z.boolean().optional(),
  refusedParameters: z.array(z.enum(REFUSABLE_PARAMETERS)).max(REFUSABLE_PARAMETERS.length).optional(),
});

const ModelList = z.array(ModelEntry).min(1, "must list at least one model").max(50);

function parseModels(raw: string | undefined, baseUrl: string): ModelSetting[] {
  let json: unknown = DEFAULT_MODELS;
  if (raw !== undefined) {
    try {
      json = JSON.parse(raw);
    } catch {
      throw new ConfigError(
        "LLM_MODELS",
        'must be a JSON array of models, e.g. [{"id":"gpt-4.1-mini","upstreamId":"gpt-4.1-mini","encoding":"o200k_base","inputPerMillionUsd":"1.50","outputPerMillionUsd":"3.00"}]',
      );
    }
  }
  const parsed = ModelList.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    throw new ConfigError("LLM_MODELS", `${where}${issue?.message ?? "is invalid"}`);
  }
  const seen = new Set<string>();
  return parsed.data.map((entry) => {
    if (seen.has(entry.id)) throw new ConfigError("LLM_MODELS", `lists the model "${entry.id}" twice`);
    seen.add(entry.id);
    if (entry.maxOutputTokens && entry.contextTokens && entry.maxOutputTokens > entry.contextTokens) {
      throw new ConfigError("LLM_MODELS", `${entry.id}: maxOutputTokens exceeds contextTokens`);
    }
    const upstreamId = entry.upstreamId ?? entry.id;
    const reasoning = entry.reasoning ?? isOpenAiReasoningModel(upstreamId);
    // OpenAI itself takes max_completion_tokens for every model (max_tokens is deprecated there); other
    // OpenAI-compatible servers (vLLM, Ollama, llama.cpp…) take max_tokens, except for OpenAI's reasoning
    // models, which refuse max_tokens wherever they are served (Azure, gateways).
    const tokenLimitParameter =
      entry.tokenLimitParameter ??
      (reasoning || baseUrl === DEFAULT_LLM_BASE_URL ? "max_completion_tokens" : "max_tokens");
    return {
      id: entry.id,
      upstreamId,
      encoding: entry.encoding,
      description: entry.description,
      inputPerMillionUsd: formatRate(entry.inputPerMillionUsd),
      outputPerMillionUsd: formatRate(entry.outputPerMillionUsd),
      inputE6: entry.inputPerMillionUsd,
      outputE6: entry.outputPerMillionUsd,
      maxOutputTokens: entry.maxOutputTokens,
      contextTokens: entry.contextTokens,
      tokenLimitParameter,
      reasoning,
      refusedParameters: [...new Set(entry.refusedParameters ?? (reasoning ? REASONING_REFUSES : []))],
    };
  });
}

function parseInstructions(env: Config["env"]): Pick<LlmSettings, "instructions" | "instructionsSource"> {
  const inline = envString(env, "LLM_INSTRUCTIONS");
  const file = envString(env, "LLM_INSTRUCTIONS_FILE");
  if (inline !== undefined && file !== undefined) {
    throw new ConfigError(
      "LLM_INSTRUCTIONS_FILE",
      "give either LLM_INSTRUCTIONS or LLM_INSTRUCTIONS_FILE, not both",
    );
  }
  let text = inline;
  let source: LlmSettings["instructionsSource"] = "LLM_INSTRUCTIONS";
  if (file !== undefined) {
    source = "LLM_INSTRUCTIONS_FILE";
    try {
      text = fs.readFileSync(file, "utf8").trim();
    } catch (error) {
      throw new ConfigError("LLM_INSTRUCTIONS_FILE", `cannot be read: ${(error as Error).message}`);
    }
    if (text === "") throw new ConfigError("LLM_INSTRUCTIONS_FILE", `${file} is empty`);
  }
  if (text === undefined) return { instructions: DEFAULT_INSTRUCTIONS, instructionsSource: "default" };
  if (text.length > MAX_INSTRUCTIONS_CHARS) {
    throw new ConfigError(
      source,
      `must be at most ${MAX_INSTRUCTIONS_CHARS} characters (every call pays for them)`,
    );
  }
  return { instructions: text, instructionsSource: source };
}

export function loadLlmSettings(config: Config): LlmSettings {
  const env = config.env;
  const baseUrl = upstreamBaseUrl(config, "llm", DEFAULT_LLM_BASE_URL);
  const models = parseModels(envString(env, "LLM_MODELS"), baseUrl);
  const defaultId = envString(env, "LLM_DEFAULT_MODEL");
  const defaultModel = defaultId === undefined ? models[0] : models.find((m) => m.id === defaultId);
  if (!defaultModel) {
    throw new ConfigError(
      "LLM_DEFAULT_MODEL",
      `must be one of the models in LLM_MODELS (${models.map((m) => m.id).join(", ")}), got "${defaultId}"`,
    );
  }
  // The answer must be ready in time to settle before the buyer's authorization expires (config.ts).
  const maxTimeoutMs = Math.max(1000, config.handlerBudgetMs);
  return {
    models,
    defaultModel,
    ...parseInstructions(env),
    timeoutMs: envInteger(
      env,
      "LLM_TIMEOUT_MS",
      Math.min(DEFAULT_TIMEOUT_MS, maxTimeoutMs),
      1000,
      maxTimeoutMs,
    ),
    apiKey: envString(env, "LLM_API_KEY"),
    baseUrl,
  };
}

/** The default upstream needs a key; any other OpenAI-compatible server (vLLM, Ollama…) may not. */
export function upstreamConfigured(settings: LlmSettings): boolean {
  return settings.apiKey !== undefined || settings.baseUrl !== DEFAULT_LLM_BASE_URL;
}
