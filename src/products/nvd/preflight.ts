// The NVD checks `npm run preflight` runs: one CVE record (with the key, so a refused key shows), the KEV
// catalogue asked conditionally (a 304 costs no download), and whether a key raises the allowance.
import type { PreflightCheck } from "../../catalog/product.ts";
import { optionalKeyCheck } from "../../preflight/live-requirements.ts";
import { httpProbe } from "../../preflight/probe.ts";
import type { NvdSettings } from "./settings.ts";
import { KEV_FEED_PATH, KEV_UPSTREAM, NVD_CVES_PATH, nvdUpstream } from "./upstream.ts";

export function nvdPreflight(settings: NvdSettings): PreflightCheck[] {
  return [
    optionalKeyCheck("nvd", "NVD_API_KEY", "NVD allows ten times fewer requests; the first sync takes hours"),
    httpProbe(
      // Without the sync's throttle policy: here a 403 is an answer to show (an unknown key, or the limit).
      { ...nvdUpstream(settings), throttle: undefined },
      {
        path: NVD_CVES_PATH,
        query: { cveId: "CVE-2021-44228" },
        headers: { accept: "application/json", ...(settings.apiKey ? { apiKey: settings.apiKey } : {}) },
      },
      { fix: "Check NVD_API_KEY (NVD refuses an unknown key) and NVD_BASE_URL." },
    ),
    httpProbe(
      KEV_UPSTREAM,
      {
        path: KEV_FEED_PATH,
        headers: { accept: "application/json" },
        lastModified: new Date().toUTCString(),
      },
      { fix: "Check that www.cisa.gov (or CISA_KEV_BASE_URL) is reachable." },
    ),
  ];
}
