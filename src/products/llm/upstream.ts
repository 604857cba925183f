// Any OpenAI-compatible chat-completions API (LLM_BASE_URL, LLM_API_KEY): POST {base}/chat/completions for
// answers, GET {base}/models for the availability probe. The shared UpstreamClient only does GET, so the
// POST goes through fetch here, with its own timeout and no retry (a retry would double the buyer's wait
// while their payment authorisation runs down; a failed call is not charged and can simply be repeated).
// UPSTREAMS=replay answers the POST from this family's recordings, looked up here because the registry's
// recording index is not reachable from a family.
// Sources: OpenAI's API reference for chat completions (max_tokens is deprecated for max_completion_tokens and
// refused by o-series and gpt-5 models with 400 unsupported_parameter; reasoning models take only the default
// temperature); OpenAI's rate-limit guide (429 with retry-after, honoured by openai-node and openai-python).
// OpenAI's rate limits depend on the account's usage tier; a 429's Retry-After is passed to the buyer.
import path from "node:path";
import type { HandlerContext } from "../../catalog/product.ts";
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../upstream/client.ts";
import { loadRecordings, RecordingIndex } from "../../upstream/recordings.ts";
import { type NormalisedCompletion, normaliseCompletion, upstreamErrorMessage } from "./normalise.ts";
import { DEFAULT_LLM_BASE_URL, type LlmSettings } from "./settings.ts";
import type { ChatMessage } from "./tokens.ts";

export const LLM_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");
const CHAT_COMPLETIONS_PATH = "/chat/completions";
export const MODELS_PATH = "/models";
/** Longest upstream answer read; 32000 tokens of text are far below it. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export const LLM_UPSTREAM: UpstreamSpec = {
  name: "llm",
  defaultBaseUrl: DEFAULT_LLM_BASE_URL,
  maxConcurrent: 1,
  minIntervalMs: 1000,
  timeoutMs: 30_000,
  retries: 2,
};

type FailureReason = "timeout" | "network" | "http_error" | "malformed_answer" | "no_recording";

export class LlmUpstreamError extends Error {
  readonly reason: FailureReason;
  readonly status: number | undefined;
  /** The provider's Retry-After, in seconds, when it sent one. */
  readonly retryAfterSec: number | undefined;
  constructor(reason: FailureReason, message: string, status?: number, retryAfterSec?: number) {
    super(message);
    this.reason = reason;
    this.status = status;
    this.retryAfterSec = retryAfterSec;
  }
}

/** Longest wait passed on from a provider's Retry-After (a day); longer values are treated as this. */
const MAX_RETRY_AFTER_SEC = 86_400;

/** Retry-After as seconds (RFC 9110: delay-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  let seconds: number;
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) seconds = Number(trimmed);
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    seconds = (at - now) / 1000;
  }
  return Math.min(MAX_RETRY_AFTER_SEC, Math.max(1, Math.ceil(seconds)));
}

/**
 * What is sent upstream: OpenAI's chat-completions request, with the upstream's model name and the answer
 * cap in the one field the model takes (max_completion_tokens on OpenAI, max_tokens on most other servers).
 */
export interface UpstreamChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  seed?: number;
  response_format?: unknown;
}

interface CompletionResult extends NormalisedCompletion {
  recordedSample: boolean;
}

let replayIndex: RecordingIndex | undefined;

function recordings(): RecordingIndex {
  replayIndex ??= new RecordingIndex(loadRecordings(LLM_RECORDINGS_DIR));
  return replayIndex;
}

function authHeaders(settings: LlmSettings): Record<string, string> {
  return settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
}

async function exchange(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: LlmSettings,
  request: UpstreamChatRequest,
): Promise<{ status: number; text: string; retryAfter: string | null; recordedSample: boolean }> {
  if (ctx.upstreams.mode === "replay") {
    const recording = recordings().find(LLM_UPSTREAM.name, "POST", { path: CHAT_COMPLETIONS_PATH });
    if (!recording) {
      throw new LlmUpstreamError(
        "no_recording",
        `no recording answers POST ${CHAT_COMPLETIONS_PATH} (UPSTREAMS=replay)`,
      );
    }
    const headers = recording.response.headers ?? {};
    return {
      status: recording.response.status,
      text: recording.body,
      retryAfter: headers["retry-after"] ?? null,
      recordedSample: true,
    };
  }
  const baseUrl = ctx.upstreams.client(LLM_UPSTREAM).baseUrl;
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${CHAT_COMPLETIONS_PATH}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": ctx.upstreams.userAgent,
        ...authHeaders(settings),
      },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    const length = Number(response.headers.get("content-length") ?? "0");
    if (length > MAX_ANSWER_BYTES) {
      await response.body?.cancel();
      throw new LlmUpstreamError("malformed_answer", `the answer is ${length} bytes long`, response.status);
    }
    const text = await response.text();
    if (text.length > MAX_ANSWER_BYTES) {
      throw new LlmUpstreamError("malformed_answer", `the answer is over ${MAX_ANSWER_BYTES} bytes long`);
    }
    return {
      status: response.status,
      text,
      retryAfter: response.headers.get("retry-after"),
      recordedSample: false,
    };
  } catch (error) {
    if (error instanceof LlmUpstreamError) throw error;
    const name = (error as { name?: string })?.name;
    if (name === "TimeoutError" || name === "AbortError") {
      throw new LlmUpstreamError("timeout", `no answer within ${Math.round(settings.timeoutMs / 1000)} s`);
    }
    const cause = (error as { cause?: { code?: string } })?.cause?.code;
    throw new LlmUpstreamError("network", `could not reach the model provider${cause ? ` (${cause})` : ""}`);
  }
}

/** One chat completion; every failure is an LlmUpstreamError saying what went wrong, never a secret. */
export async function createChatCompletion(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: LlmSettings,
  request: UpstreamChatRequest,
): Promise<CompletionResult> {
  const { status, text, retryAfter, recordedSample } = await exchange(ctx, settings, request);
  if (status < 200 || status >= 300) {
    // A refused key's message may echo part of it; say only what kind of refusal it was.
    const detail =
      status === 401 || status === 403
        ? "the provider refused the service's credentials"
        : (upstreamErrorMessage(text) ?? "no error message");
    throw new LlmUpstreamError(
      "http_error",
      `the model provider answered HTTP ${status}: ${detail}`,
      status,
      parseRetryAfter(retryAfter),
    );
  }
  const normalised = normaliseCompletion(text);
  if ("error" in normalised) throw new LlmUpstreamError("malformed_answer", normalised.error, status);
  return { ...normalised, recordedSample };
}

/** Model ids the upstream lists at GET /models (OpenAI: `{"data": [{"id": …}]}`). */
export async function listUpstreamModels(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: LlmSettings,
): Promise<{ ids: string[]; recordedSample: boolean }> {
  let response: UpstreamResponse;
  try {
    response = await ctx.upstreams.client(LLM_UPSTREAM).get({
      path: MODELS_PATH,
      headers: { accept: "application/json", ...authHeaders(settings) },
    });
  } catch (error) {
    // The client's message carries the URL; the status page shows only the kind of failure.
    const status = error instanceof UpstreamError ? error.status : undefined;
    throw new Error(`GET ${MODELS_PATH} failed${status ? ` with HTTP ${status}` : ": no answer"}`);
  }
  if (response.status !== 200) {
    const detail =
      response.status === 401 || response.status === 403
        ? "credentials refused"
        : (upstreamErrorMessage(response.body) ?? "no error message");
    throw new Error(`GET ${MODELS_PATH} answered HTTP ${response.status}: ${detail}`);
  }
  let data: unknown;
  try {
    data = (JSON.parse(response.body) as { data?: unknown }).data;
  } catch {
    throw new Error(`GET ${MODELS_PATH} answered something other than JSON`);
  }
  if (!Array.isArray(data)) throw new Error(`GET ${MODELS_PATH} answered no "data" list`);
  const ids = data
    .map((entry) => (entry as { id?: unknown })?.id)
    .filter((id): id is string => typeof id === "string");
  return { ids, recordedSample: response.recordedSample };
}
