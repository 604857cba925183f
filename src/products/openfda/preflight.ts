// The checks `npm run preflight` runs for openFDA: whether a key raises the daily allowance, and one label
// (limit=1) asked with the key when one is set, so a refused key (403 API_KEY_INVALID) shows before going live.
import type { PreflightCheck } from "../../catalog/product.ts";
import { optionalKeyCheck } from "../../preflight/live-requirements.ts";
import { httpProbe } from "../../preflight/probe.ts";
import type { OpenFdaSettings } from "./settings.ts";
import { LABEL_PATH, OPENFDA_UPSTREAM } from "./upstream.ts";

export function openFdaPreflight(settings: Pick<OpenFdaSettings, "apiKey">): PreflightCheck[] {
  return [
    optionalKeyCheck(
      "openfda",
      "OPENFDA_API_KEY",
      "openFDA allows 1,000 requests a day per IP instead of 120,000",
    ),
    httpProbe(
      OPENFDA_UPSTREAM,
      {
        path: LABEL_PATH,
        query: { limit: 1, ...(settings.apiKey ? { api_key: settings.apiKey } : {}) },
        headers: { accept: "application/json" },
      },
      { fix: "Check OPENFDA_API_KEY (openFDA refuses an unknown key) and OPENFDA_BASE_URL." },
    ),
  ];
}
