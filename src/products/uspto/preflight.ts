// `npm run preflight` for the USPTO family: settings of the PatentsView era still set, and one GET of the
// portal's status-code list (its cheapest call, one record) with the key, judged so that a missing key (401)
// and a refused or not yet activated key (403) each say what to do.
import type { PreflightCheck, PreflightVerdict } from "../../catalog/product.ts";
import { httpProbe, judgeStatus, settingCheck } from "../../preflight/probe.ts";
import type { UpstreamResponse } from "../../upstream/client.ts";
import { LEGACY_VARIABLES, type UsptoSettings } from "./settings.ts";
import { odpSpec, STATUS_CODES_PATH } from "./upstream.ts";

export function judgePortal(response: UpstreamResponse): PreflightVerdict {
  const where = response.url.replace(/\?.*$/, "");
  if (response.status === 401) {
    return {
      state: "blocker",
      detail: `HTTP 401 from ${where}: no API key reached the portal`,
      fix: "Set USPTO_API_KEY to your Open Data Portal key (MyODP at data.uspto.gov).",
    };
  }
  if (response.status === 403) {
    return {
      state: "blocker",
      detail: `HTTP 403 from ${where}: the portal refused the API key`,
      fix: "Check USPTO_API_KEY at MyODP (data.uspto.gov); a newly issued key is refused for a few minutes until it is activated. PatentsView keys are not accepted.",
    };
  }
  return judgeStatus(response, "Check USPTO_BASE_URL and USPTO_API_KEY.");
}

export function usptoPreflight(settings: UsptoSettings): PreflightCheck[] {
  return [
    settingCheck("uspto (legacy settings)", ({ config }) => {
      const left = LEGACY_VARIABLES.filter((name) => (config.env[name] ?? "").trim() !== "");
      return left.length === 0
        ? { state: "ok", detail: "no PatentsView setting left" }
        : {
            state: "warn",
            detail: `${left.join(", ")} ${left.length === 1 ? "is" : "are"} set but no longer read: PatentsView moved into the USPTO Open Data Portal (2026-03-20)`,
            fix: "Remove them; set USPTO_API_KEY (and USPTO_MIN_INTERVAL_MS, USPTO_BASE_URL if needed).",
          };
    }),
    httpProbe(
      odpSpec(settings),
      {
        path: STATUS_CODES_PATH,
        query: { limit: 1 },
        headers: { accept: "application/json", ...(settings.apiKey ? { "x-api-key": settings.apiKey } : {}) },
      },
      { judge: judgePortal },
    ),
  ];
}
