// FRED's terms as they bind this service. The St. Louis Fed's Terms of Use (updated 2024) prohibit storing,
// caching or archiving FRED content and providing stored content to third parties, and its API-key page asks
// every user of an application to use their own key. This service stores series and sells them, so live FRED
// runs only when the operator declares the St. Louis Fed's permission (FRED_REDISTRIBUTION=permitted).
import type { FamilyUnavailable } from "../../catalog/product.ts";
import type { FredSettings } from "./settings.ts";

export const FRED_LEGAL_TERMS_URL = "https://fred.stlouisfed.org/legal/terms/";
export const FRED_API_TERMS_URL = "https://fred.stlouisfed.org/docs/api/terms_of_use.html";
const FRED_API_KEY_URL = "https://fred.stlouisfed.org/docs/api/api_key.html";

/** What live mode lacks to fetch from FRED, or undefined when it may (replay mode needs neither). */
export function fredLiveProblem(
  settings: Pick<FredSettings, "apiKey" | "redistributionPermitted">,
): FamilyUnavailable | undefined {
  if (!settings.redistributionPermitted) {
    return {
      reason:
        "Live FRED is off: the St. Louis Fed's Terms of Use prohibit storing or caching FRED content and providing " +
        `stored content to third parties without its permission (${FRED_LEGAL_TERMS_URL}).`,
      fix: "Only with the St. Louis Fed's permission to redistribute: set FRED_REDISTRIBUTION=permitted and FRED_API_KEY.",
      docs: FRED_LEGAL_TERMS_URL,
      optIn: true,
    };
  }
  if (settings.apiKey === undefined) {
    return {
      reason: "FRED_API_KEY is not set: no FRED series can be fetched live.",
      fix: `Get a free key at ${FRED_API_KEY_URL} and set FRED_API_KEY (32 lower-case letters and digits).`,
      docs: FRED_API_KEY_URL,
    };
  }
  return undefined;
}
