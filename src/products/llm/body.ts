// The body of POST /v1/llm/chat (`messages`: 1 to 500 items; `max_tokens`: default 1024, max 32000). Text only: string contents, three roles. Every
// rejection names its field ("messages.3.role", "stream"), so the 400 says exactly what to fix.
import { z } from "zod";

export const MAX_MESSAGES = 500;
export const DEFAULT_MAX_TOKENS = 1024;
export const MAX_MAX_TOKENS = 32_000;
export const MAX_STOP_SEQUENCES = 4;

const ROLES = ["system", "user", "assistant"] as const;

/** Fields an OpenAI client may send that this endpoint deliberately does not offer, and why. */
const NOT_OFFERED: Record<string, string> = {
  stream: "streaming is not offered: the answer is returned whole, after payment settles",
  n: "one choice per call; call again for another",
  tools: "tool calling is not offered: this endpoint is text only",
  tool_choice: "tool calling is not offered: this endpoint is text only",
  functions: "function calling is not offered: this endpoint is text only",
  function_call: "function calling is not offered: this endpoint is text only",
  max_completion_tokens:
    "use max_tokens: it is both the answer-length cap and the spend limit (it reaches models that need it as max_completion_tokens)",
  logprobs: "log probabilities are not returned",
  modalities: "this endpoint is text only",
  audio: "this endpoint is text only",
};

/**
 * A loose object that rejects keys outside `shape` one by one with a field-named issue (a strict object
 * reports unknown keys at the object's own path); documented as additionalProperties: false.
 */
function closedObject<T extends z.ZodRawShape>(shape: T, describeKnown: string) {
  return z
    .looseObject(shape)
    .superRefine((value, ctx) => {
      for (const key of Object.keys(value)) {
        if (key in shape) continue;
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: NOT_OFFERED[key] ?? `unknown field; ${describeKnown}`,
        });
      }
    })
    .meta({ additionalProperties: false });
}

const Message = closedObject(
  {
    role: z.enum(ROLES, { error: "must be system, user or assistant" }),
    content: z.string({
      error: (issue) =>
        issue.input === undefined
          ? "is required: the message text"
          : "must be a string: this endpoint is text only (no image, audio or file parts)",
    }),
  },
  "a message has role and content only",
);

const ResponseFormat = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("text") }),
    z.strictObject({ type: z.literal("json_object") }),
    z.strictObject({
      type: z.literal("json_schema"),
      json_schema: z.strictObject({
        name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, _ or -"),
        description: z.string().optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().nullable().optional(),
      }),
    }),
  ],
  { error: "must be {type: text}, {type: json_object} or {type: json_schema, json_schema: {name, schema}}" },
);

/** The body schema; `defaultModel` fills `model` when it is omitted. */
export function chatBodySchema(defaultModel: string) {
  return closedObject(
    {
      model: z
        .string({ error: "must be a model name from /v1/llm/models" })
        .trim()
        .min(1, "must not be empty; omit it for the default model")
        .max(100)
        .default(defaultModel)
        .describe(`A model from /v1/llm/models; default ${defaultModel}`),
      messages: z
        .array(Message, { error: "is required: an array of {role, content} messages" })
        .min(1, "must hold at least one message")
        .max(MAX_MESSAGES, `must hold at most ${MAX_MESSAGES} messages`)
        .describe(
          "The conversation, oldest first: 1 to 500 {role, content} with role system, user or assistant",
        ),
      max_tokens: z
        .int({ error: "must be an integer" })
        .min(1, "must be at least 1")
        .max(MAX_MAX_TOKENS, `must be at most ${MAX_MAX_TOKENS}`)
        .default(DEFAULT_MAX_TOKENS)
        .describe("Answer-length cap and spend limit, paid in advance; default 1024, max 32000"),
      temperature: z
        .number({ error: "must be a number" })
        .min(0, "must be from 0 to 2")
        .max(2, "must be from 0 to 2")
        .optional(),
      top_p: z
        .number({ error: "must be a number" })
        .min(0, "must be from 0 to 1")
        .max(1, "must be from 0 to 1")
        .optional(),
      stop: z
        .union(
          [
            z.string().min(1),
            z
              .array(z.string().min(1, "stop sequences must not be empty"))
              .min(1)
              .max(MAX_STOP_SEQUENCES, `at most ${MAX_STOP_SEQUENCES} stop sequences`),
          ],
          { error: `must be an array of 1 to ${MAX_STOP_SEQUENCES} non-empty strings` },
        )
        .transform((value) => (typeof value === "string" ? [value] : value))
        .optional()
        .describe("Up to 4 sequences where the model stops"),
      seed: z
        .int({ error: "must be an integer" })
        .min(Number.MIN_SAFE_INTEGER)
        .max(Number.MAX_SAFE_INTEGER)
        .optional(),
      response_format: ResponseFormat.optional().describe(
        "text (default), json_object, or json_schema with a named schema; the schema's text is billed as prompt tokens",
      ),
    },
    "the body takes model, messages, max_tokens, temperature, top_p, stop, seed and response_format",
  );
}

export type ChatBody = z.output<ReturnType<typeof chatBodySchema>>;
