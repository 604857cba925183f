// The USPTO family: US patent grants from the USPTO Open Data Portal, by number or by words in the title,
// cached, fetched live on a miss, recent grants warmed daily. Needs USPTO_API_KEY in live mode.
import path from "node:path";
import {
  type AnyProduct,
  type FamilyFactory,
  type FamilyUnavailable,
  unavailableWhenLive,
} from "../../catalog/product.ts";
import type { Config } from "../../config.ts";
import { usptoPatent } from "./patent.ts";
import { usptoPreflight } from "./preflight.ts";
import { readUsptoSettings, type UsptoSettings } from "./settings.ts";
import { usptoCoverage, usptoSchema, usptoStatus } from "./status.ts";
import { usptoWarmer } from "./warmer.ts";

export const USPTO_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

const USPTO_KEY_DOCS = "https://data.uspto.gov/apis/getting-started";

/** Live mode without USPTO_API_KEY: disabled, saying why (a PatentsView key left set cannot stand in). */
function usptoUnavailable(config: Config, settings: UsptoSettings): FamilyUnavailable | undefined {
  if (settings.apiKey) return undefined;
  const reason = settings.legacyPatentsViewKey
    ? "USPTO_API_KEY is not set. PATENTSVIEW_API_KEY is set, but PatentsView's PatentSearch API moved into the USPTO Open Data Portal on 2026-03-20 and the portal does not accept PatentSearch keys."
    : "USPTO_API_KEY is not set, and the USPTO Open Data Portal refuses calls without a key.";
  return unavailableWhenLive(config, {
    reason,
    fix: "Set USPTO_API_KEY to an Open Data Portal API key (free: a USPTO.gov account verified with ID.me, then MyODP), and remove PATENTSVIEW_API_KEY.",
    docs: USPTO_KEY_DOCS,
  });
}

export const usptoFamily: FamilyFactory = (config) => {
  const settings = readUsptoSettings(config.env);
  const paid: AnyProduct[] = [usptoPatent(settings)];
  return {
    name: "uspto",
    unavailable: usptoUnavailable(config, settings),
    preflight: usptoPreflight(settings),
    products: [...paid, usptoStatus(settings), usptoCoverage, usptoSchema(() => paid)],
    warmers: [usptoWarmer(settings)],
    recordingsDir: USPTO_RECORDINGS_DIR,
  };
};
