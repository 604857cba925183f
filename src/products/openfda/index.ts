// The openFDA family: FDA drug labels by brand or generic name, cached by name, popular names refreshed daily.
import path from "node:path";
import type { FamilyFactory } from "../../catalog/product.ts";
import { openFdaLabel } from "./label.ts";
import { openFdaPreflight } from "./preflight.ts";
import { readOpenFdaSettings } from "./settings.ts";
import { openFdaStatus } from "./status.ts";
import { openFdaWarmer } from "./warmer.ts";

export const OPENFDA_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const openFdaFamily: FamilyFactory = (config) => {
  const settings = readOpenFdaSettings(config.env);
  return {
    name: "openfda",
    preflight: openFdaPreflight(settings),
    products: [openFdaLabel(settings), openFdaStatus(settings)],
    warmers: [openFdaWarmer(settings)],
    recordingsDir: OPENFDA_RECORDINGS_DIR,
  };
};
