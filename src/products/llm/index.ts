// The llm family: a chat-completion endpoint priced from the prompt before the model runs, over any
// OpenAI-compatible upstream, and its free model list.
import type { FamilyFactory } from "../../catalog/product.ts";
import { chatProduct } from "./chat.ts";
import { modelsProduct } from "./models.ts";
import { llmKeyUnavailable, llmPreflight } from "./preflight.ts";
import { Pricer } from "./pricing.ts";
import { loadLlmSettings, upstreamConfigured } from "./settings.ts";
import { LLM_RECORDINGS_DIR } from "./upstream.ts";
import { LLM_FAMILY, llmProbeWarmer } from "./warmer.ts";

export const llmFamily: FamilyFactory = (config) => {
  const settings = loadLlmSettings(config);
  const pricer = new Pricer(settings);
  return {
    name: LLM_FAMILY,
    unavailable: llmKeyUnavailable(config, upstreamConfigured(settings)),
    preflight: llmPreflight(settings),
    products: [chatProduct(settings, pricer, config.upstreams === "replay"), modelsProduct(settings, pricer)],
    warmers: [llmProbeWarmer(settings)],
    recordingsDir: LLM_RECORDINGS_DIR,
  };
};
