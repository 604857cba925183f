// The npm family: package cards from the npm registry's abbreviated packuments, version documents and
// download counts, cached with a freshness window and ETag revalidation, fetched live on a miss, popular
// packages kept warm hourly.
import path from "node:path";
import type { AnyProduct, FamilyFactory } from "../../catalog/product.ts";
import { npmCard } from "./card.ts";
import { npmPreflight } from "./preflight.ts";
import { readNpmSettings } from "./settings.ts";
import { npmCoverage, npmSchema, npmStatus } from "./status.ts";
import { npmWarmer } from "./warmer.ts";

export const NPM_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const npmFamily: FamilyFactory = (config) => {
  const settings = readNpmSettings(config.env);
  const paid: AnyProduct[] = [npmCard(settings)];
  return {
    name: "npm",
    preflight: npmPreflight,
    products: [...paid, npmStatus(settings), npmCoverage(settings), npmSchema(() => paid)],
    warmers: [npmWarmer(settings)],
    recordingsDir: NPM_RECORDINGS_DIR,
  };
};
