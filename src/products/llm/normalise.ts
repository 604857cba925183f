// OpenAI-compatible chat-completion answers → the choices this service returns (text only), and the
// error message an upstream puts in its error body.
import { z } from "zod";

const UpstreamChoice = z.object({
  index: z.int().nonnegative().optional(),
  message: z.object({
    role: z.string().optional(),
    content: z.string().nullable().optional(),
    refusal: z.string().nullable().optional(),
  }),
  finish_reason: z.string().nullable().optional(),
});

const UpstreamCompletion = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z.array(UpstreamChoice).min(1),
  usage: z
    .object({
      prompt_tokens: z.int().nonnegative(),
      completion_tokens: z.int().nonnegative(),
      total_tokens: z.int().nonnegative().optional(),
      // OpenAI: reasoning tokens are part of completion_tokens, broken out here.
      completion_tokens_details: z
        .object({ reasoning_tokens: z.int().nonnegative().nullable().optional() })
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
});

interface Choice {
  index: number;
  message: { role: "assistant"; content: string };
  finish_reason: string;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface NormalisedCompletion {
  choices: Choice[];
  /** The upstream's own count: what the `upto` scheme bills (exact's price never depends on it). */
  usage: Usage | undefined;
  /** Of usage.completion_tokens, the hidden reasoning tokens, when the provider says. */
  reasoningTokens: number | undefined;
  upstreamModel: string | undefined;
}

/** The completion in a 2xx body, or a sentence saying why it is not one. */
export function normaliseCompletion(text: string): NormalisedCompletion | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: `the answer is not JSON (${text.length} bytes)` };
  }
  const parsed = UpstreamCompletion.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      error: `the answer is not a chat completion (${issue?.path.join(".") || "body"}: ${issue?.message})`,
    };
  }
  const completion = parsed.data;
  const choices = completion.choices.map((choice, position) => ({
    index: choice.index ?? position,
    message: {
      role: "assistant" as const,
      // A model that declines may answer with `refusal` and no content; that text is the answer.
      content: choice.message.content ?? choice.message.refusal ?? "",
    },
    finish_reason: choice.finish_reason ?? "stop",
  }));
  const usage = completion.usage
    ? {
        prompt_tokens: completion.usage.prompt_tokens,
        completion_tokens: completion.usage.completion_tokens,
        total_tokens:
          completion.usage.total_tokens ??
          completion.usage.prompt_tokens + completion.usage.completion_tokens,
      }
    : undefined;
  const reasoningTokens = completion.usage?.completion_tokens_details?.reasoning_tokens ?? undefined;
  return { choices, usage, reasoningTokens, upstreamModel: completion.model };
}

/** `{"error": {"message": …}}` (OpenAI and most compatible servers), `{"error": "…"}` or `{"message": …}`. */
export function upstreamErrorMessage(text: string): string | undefined {
  try {
    const json = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = json?.error;
    const message =
      typeof error === "string"
        ? error
        : typeof (error as { message?: unknown })?.message === "string"
          ? (error as { message: string }).message
          : typeof json?.message === "string"
            ? json.message
            : typeof json?.detail === "string"
              ? json.detail
              : undefined;
    return message?.replace(/\s+/g, " ").trim().slice(0, 300) || undefined;
  } catch {
    return undefined;
  }
}
