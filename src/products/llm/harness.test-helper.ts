// Used by this family's tests only: the shared family harness opened on the llm family, and a loopback
// OpenAI-compatible provider whose behaviour each test chooses.

import path from "node:path";
import {
  type FamilyTestContext,
  type LoopbackUpstream,
  openFamilyContext,
  startLoopbackUpstream,
} from "../../../test/family-harness.ts";
import { loadRecordings, type Recording } from "../../upstream/recordings.ts";
import { llmFamily } from "./index.ts";
import { isOpenAiReasoningModel } from "./settings.ts";
import { LLM_RECORDINGS_DIR } from "./upstream.ts";

export function openTestContext(env: Record<string, string> = {}): Promise<FamilyTestContext> {
  return openFamilyContext(llmFamily, env);
}

export type ProviderBehaviour =
  | { kind: "answer"; content: string; finishReason?: string }
  | { kind: "status"; status: number; body: string; headers?: Record<string, string> }
  /** OpenAI's own rules for reasoning models, answered with the recorded OpenAI answers. */
  | { kind: "openai"; rateLimited?: boolean }
  | { kind: "garbage" }
  | { kind: "hang"; ms: number };

export interface ProviderCall {
  path: string;
  method: string;
  authorization: string | undefined;
  body: Record<string, unknown> | undefined;
}

export interface FakeProvider extends LoopbackUpstream {
  behaviour: ProviderBehaviour;
  /** GET /models answers this instead of the model list when set. */
  modelsRefusal: { status: number; body: string } | undefined;
  calls: ProviderCall[];
  chatCalls: () => ProviderCall[];
}

/** Answers POST /chat/completions as `behaviour` says and GET /models with two listed models. */
export async function startFakeProvider(listed = ["gpt-4.1-mini", "gpt-4o-mini"]): Promise<FakeProvider> {
  const calls: ProviderCall[] = [];
  const provider = {} as FakeProvider;
  provider.behaviour = { kind: "answer", content: "Hi there." };
  const loopback = await startLoopbackUpstream(async (url, request, text) => {
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    calls.push({
      path: url.pathname,
      method: request.method ?? "GET",
      authorization: request.headers.authorization,
      body,
    });
    if (url.pathname === "/models") {
      if (provider.modelsRefusal) return provider.modelsRefusal;
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ object: "list", data: listed.map((id) => ({ id, object: "model" })) }),
      };
    }
    const behaviour = provider.behaviour;
    if (behaviour.kind === "status") {
      return { status: behaviour.status, headers: behaviour.headers, body: behaviour.body };
    }
    if (behaviour.kind === "openai") return replay(openAiAnswer(body ?? {}, behaviour.rateLimited ?? false));
    if (behaviour.kind === "garbage") return { status: 200, body: "<html>502 Bad Gateway</html>" };
    if (behaviour.kind === "hang") await new Promise((resolve) => setTimeout(resolve, behaviour.ms));
    const content = behaviour.kind === "answer" ? behaviour.content : "late";
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "chatcmpl-test",
        object: "chat.completion",
        created: 1795000000,
        model: String(body?.model),
        choices: [
          {
            index: 0,
            message: { role: "assistant", content, refusal: null },
            finish_reason: behaviour.kind === "answer" ? (behaviour.finishReason ?? "stop") : "stop",
          },
        ],
        usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 },
      }),
    };
  });
  return Object.assign(provider, loopback, {
    calls,
    chatCalls: () => calls.filter((c) => c.path === "/chat/completions"),
  });
}

const OPENAI_RECORDINGS = new Map(
  loadRecordings(path.join(LLM_RECORDINGS_DIR, "openai-reasoning")).map((r) => [
    path.basename(r.file, ".recording.json"),
    r,
  ]),
);

function recorded(name: string): Recording {
  const recording = OPENAI_RECORDINGS.get(name);
  if (!recording) throw new Error(`no recording openai-reasoning/${name}.recording.json`);
  return recording;
}

function replay(recording: Recording) {
  return { status: recording.response.status, headers: recording.response.headers, body: recording.body };
}

/** What OpenAI answers a chat request, as its reference and error reports document it. */
function openAiAnswer(body: Record<string, unknown>, rateLimited: boolean): Recording {
  if (rateLimited) return recorded("rate-limited");
  if (!isOpenAiReasoningModel(String(body.model))) return recorded("reasoning-completion");
  if ("max_tokens" in body) return recorded("max-tokens-refused");
  if (body.temperature !== undefined && body.temperature !== 1) return recorded("temperature-refused");
  return recorded("reasoning-completion");
}
