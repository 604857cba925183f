// The courts check `npm run preflight` runs: the token, and the CourtListener API root.
import type { PreflightCheck } from "../../catalog/product.ts";
import { optionalKeyCheck } from "../../preflight/live-requirements.ts";
import { httpProbe } from "../../preflight/probe.ts";
import type { CourtsSettings } from "./settings.ts";
import { courtListenerSpec } from "./upstream.ts";

/** CourtListener: the v4 API root (no search spent), with the token when one is set (a bad one is 401). */
export function courtsPreflight(settings: CourtsSettings): PreflightCheck[] {
  return [
    optionalKeyCheck(
      "courtlistener",
      "COURTLISTENER_TOKEN",
      "anonymous callers get 5 searches a minute, 50 an hour and 100 a day per IP (2026 limits)",
    ),
    httpProbe(
      courtListenerSpec(settings),
      {
        path: "/api/rest/v4/",
        headers: {
          accept: "application/json",
          ...(settings.token ? { authorization: `Token ${settings.token}` } : {}),
        },
      },
      { fix: "Check COURTLISTENER_TOKEN (CourtListener answers 401 to an unknown token)." },
    ),
  ];
}
