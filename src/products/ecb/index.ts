// The ECB family: euro foreign exchange reference rates, refreshed daily from the ECB Data Portal.
import path from "node:path";
import type { FamilyFactory } from "../../catalog/product.ts";
import { ecbFx } from "./fx.ts";
import { ecbPreflight } from "./preflight.ts";
import { ecbStatus } from "./status.ts";
import { ecbFxWarmer } from "./warmer.ts";

export const ECB_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const ecbFamily: FamilyFactory = (_config) => ({
  name: "ecb",
  preflight: ecbPreflight,
  products: [ecbFx, ecbStatus],
  warmers: [ecbFxWarmer],
  recordingsDir: ECB_RECORDINGS_DIR,
});
