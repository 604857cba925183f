// What the llm family needs before going live: a key where the upstream needs one, and the model list.
import { type FamilyUnavailable, type PreflightCheck, unavailableWhenLive } from "../../catalog/product.ts";
import type { Config } from "../../config.ts";
import { httpProbe } from "../../preflight/probe.ts";
import type { LlmSettings } from "./settings.ts";
import { LLM_UPSTREAM, MODELS_PATH } from "./upstream.ts";

/** The default LLM upstream (OpenAI) needs a key; another OpenAI-compatible server set by LLM_BASE_URL may not. */
export function llmKeyUnavailable(config: Config, configured: boolean): FamilyUnavailable | undefined {
  if (configured) return undefined;
  return unavailableWhenLive(config, {
    reason: "LLM_API_KEY is not set and the upstream is OpenAI's API, which refuses calls without a key.",
    fix: "Set LLM_API_KEY, or LLM_BASE_URL to an OpenAI-compatible server that needs no key.",
    docs: "https://platform.openai.com/api-keys",
  });
}

/** The OpenAI-compatible model list: cheap, and refused (401) with a wrong key. */
export function llmPreflight(settings: Pick<LlmSettings, "apiKey">): PreflightCheck[] {
  return [
    httpProbe(
      LLM_UPSTREAM,
      {
        path: MODELS_PATH,
        headers: {
          accept: "application/json",
          ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
        },
      },
      { fix: "Check LLM_API_KEY and LLM_BASE_URL." },
    ),
  ];
}
