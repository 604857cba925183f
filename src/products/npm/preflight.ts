// The npm checks `npm run preflight` runs: one abbreviated packument and one download count.
import type { PreflightCheck } from "../../catalog/product.ts";
import { httpProbe } from "../../preflight/probe.ts";
import { packumentPath } from "./names.ts";
import { ABBREVIATED_ACCEPT, downloadsPath, NPM_DOWNLOADS, NPM_REGISTRY } from "./upstream.ts";

export const npmPreflight: PreflightCheck[] = [
  // The abbreviated packument, as the card asks for it.
  httpProbe(NPM_REGISTRY, {
    path: packumentPath("tiny-tarball"),
    headers: { accept: ABBREVIATED_ACCEPT },
  }),
  httpProbe(NPM_DOWNLOADS, { path: downloadsPath("express"), headers: { accept: "application/json" } }),
];
