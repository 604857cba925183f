// The FRED check `npm run preflight` runs: one series' metadata, which also proves the API key is accepted.
import type { PreflightCheck } from "../../catalog/product.ts";
import { httpProbe } from "../../preflight/probe.ts";
import type { FredSettings } from "./settings.ts";
import { FRED_UPSTREAM } from "./upstream.ts";

export function fredPreflight(settings: FredSettings): PreflightCheck[] {
  return [
    httpProbe(
      FRED_UPSTREAM,
      {
        path: "/fred/series",
        query: { series_id: "GDP", api_key: settings.apiKey, file_type: "json" },
        headers: { accept: "application/json" },
      },
      { fix: "Check FRED_API_KEY (FRED answers 400 to a key it does not know) and FRED_BASE_URL." },
    ),
  ];
}
