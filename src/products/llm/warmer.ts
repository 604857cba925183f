// The availability probe: every few hours, ask the upstream which models it serves (GET /models) and keep
// the answer, so /v1/llm/models can say whether each model on sale is actually offered by the provider and
// whether the credentials still work. It never blocks a sale: some compatible servers list models loosely.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import { type LlmSettings, upstreamConfigured } from "./settings.ts";
import { listUpstreamModels } from "./upstream.ts";

export const LLM_FAMILY = "llm";
export const LLM_PROBE_WARMER = "llm.models";
export const PROBE_KEY = "upstream-models";
export const PROBE_EVERY_MS = 6 * 3600_000;

/** The cache document the probe writes. */
export interface UpstreamModelsProbe {
  /** Every model id the upstream listed. */
  listed: string[];
}

async function probeUpstreamModels(
  ctx: Pick<HandlerContext, "upstreams" | "store">,
  settings: LlmSettings,
): Promise<Record<string, unknown>> {
  if (ctx.upstreams.mode === "live" && !upstreamConfigured(settings)) {
    return { skipped: "LLM_API_KEY is not set for the default upstream" };
  }
  const { ids, recordedSample } = await listUpstreamModels(ctx, settings);
  await ctx.store.cache.put<UpstreamModelsProbe>(LLM_FAMILY, PROBE_KEY, {
    body: { listed: ids },
    fetchedAt: new Date().toISOString(),
    recordedSample,
  });
  const listed = new Set(ids);
  const missing = settings.models.filter((m) => !listed.has(m.upstreamId)).map((m) => m.id);
  return { listed: ids.length, onSale: settings.models.length, missing };
}

export function llmProbeWarmer(settings: LlmSettings): Warmer {
  return {
    name: LLM_PROBE_WARMER,
    everyMs: PROBE_EVERY_MS,
    run: (ctx) => probeUpstreamModels(ctx, settings),
  };
}
