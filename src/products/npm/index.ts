// The npm family: package cards from the npm registry's abbreviated packuments, version documents and
// download counts, cached with a freshness window and ETag revalidation, fetched live on a miss, popular
// packages kept warm hourly.
import path from "node:path";
import type { AnyProduct, FamilyFactory } from "../../catalog/product.ts";
import { httpProbe } from "../../preflight/probe.ts";
import { npmCard } from "./card.ts";
import { packumentPath } from "./names.ts";
import { readNpmSettings } from "./settings.ts";
import { npmCoverage, npmSchema, npmStatus } from "./status.ts";
import { ABBREVIATED_ACCEPT, downloadsPath, NPM_DOWNLOADS, NPM_REGISTRY } from "./upstream.ts";
import { npmWarmer } from "./warmer.ts";

export const NPM_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const npmFamily: FamilyFactory = (config) => {
  const settings = readNpmSettings(config.env);
  const paid: AnyProduct[] = [npmCard(settings)];
  return {
    name: "npm",
    preflight: [
      // The abbreviated packument, as the card asks for it.
      httpProbe(NPM_REGISTRY, {
        path: packumentPath("tiny-tarball"),
        headers: { accept: ABBREVIATED_ACCEPT },
      }),
      httpProbe(NPM_DOWNLOADS, { path: downloadsPath("express"), headers: { accept: "application/json" } }),
    ],
    products: [...paid, npmStatus(settings), npmCoverage(settings), npmSchema(() => paid)],
    warmers: [npmWarmer(settings)],
    recordingsDir: NPM_RECORDINGS_DIR,
  };
};
