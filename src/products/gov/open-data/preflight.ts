// The checks `npm run preflight` runs for the open-data portals: one cheap request to each portal's API (a
// search asking for one row, or a SPARQL ASK), judged like a buyer's search would be (a maintenance page
// served with HTTP 200 is reported as such); and for catalog.data.gov which door answers: the documented
// keyed API (GOV_US_OPEN_DATA_API_KEY, checked against the gateway) or the keyless site backend (a warning).
import type { PreflightCheck, PreflightVerdict } from "../../../catalog/product.ts";
import type { Config } from "../../../config.ts";
import { httpProbe, judgeStatus } from "../../../preflight/probe.ts";
import type { UpstreamRequest, UpstreamResponse } from "../../../upstream/client.ts";
import { DATAGOV_API_KEY_SETTING, DATAGOV_API_UPSTREAM, datagovApiKey } from "./adapters/datagov.ts";
import type { Portal } from "./portal.ts";
import { OPEN_DATA_PORTALS } from "./portals.ts";

const JSON_ACCEPT = { accept: "application/json" };

/** The cheapest request each API family documents: one row (or none) of a search. */
function probeRequest(portal: Portal): UpstreamRequest {
  switch (portal.cc) {
    case "at":
    case "eu":
      return { path: "/search", query: { filter: "dataset", limit: 1, page: 0 }, headers: JSON_ACCEPT };
    case "fr":
      return { path: "/datasets/", query: { page: 1, page_size: 1 }, headers: JSON_ACCEPT };
    case "pl":
      return { path: "/datasets", query: { page: 1, per_page: 1 }, headers: JSON_ACCEPT };
    case "us":
      return { path: "/search", query: { per_page: 1 }, headers: JSON_ACCEPT };
    case "cz":
      return {
        path: "/sparql",
        query: { query: "ASK {}" },
        headers: { accept: "application/sparql-results+json" },
      };
    default:
      // CKAN (au, ca, ch, de, gb, jp): a package_search for no rows still answers the count.
      return { path: "/package_search", query: { rows: 0 }, headers: JSON_ACCEPT };
  }
}

/** 2xx must also be JSON: portals answer maintenance pages (HTML) with 200. */
function judgeJson(response: UpstreamResponse, fix: string | undefined): PreflightVerdict {
  const verdict = judgeStatus(response, fix);
  if (verdict.state !== "ok") return verdict;
  try {
    JSON.parse(response.body);
    return verdict;
  } catch {
    return {
      state: "warn",
      detail: `HTTP ${response.status} but not JSON (a maintenance page?): ${response.body.slice(0, 60).replace(/\s+/g, " ")}`,
      fix: "Try again later; if it persists, check the portal's base URL setting.",
    };
  }
}

function portalProbe(portal: Portal): PreflightCheck {
  const variable = `${portal.upstream.name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_BASE_URL`;
  return httpProbe(portal.upstream, probeRequest(portal), {
    fix: `Check that ${portal.upstream.defaultBaseUrl} (or ${variable}) answers from this host.`,
    judge: judgeJson,
  });
}

/** catalog.data.gov: the keyed v4 API when a key is set, else the keyless backend and a warning. */
function usProbes(config: Config, portal: Portal): PreflightCheck[] {
  const key = datagovApiKey(config.env);
  if (!key) {
    return [
      {
        upstream: `${portal.upstream.name} (API)`,
        run: async () => ({
          state: "warn",
          detail: `${DATAGOV_API_KEY_SETTING} is not set: searches use catalog.data.gov's keyless site backend, undocumented as an API and due to move behind api.data.gov`,
          fix: `Get an api.data.gov key (https://api.data.gov/signup/) and set ${DATAGOV_API_KEY_SETTING} to use the documented API.`,
        }),
      },
      portalProbe(portal),
    ];
  }
  return [
    httpProbe(
      DATAGOV_API_UPSTREAM,
      { path: "/search", query: { per_page: 1 }, headers: { ...JSON_ACCEPT, "x-api-key": key } },
      {
        fix: `Check ${DATAGOV_API_KEY_SETTING}: api.data.gov answers 403 (API_KEY_INVALID) to a key it does not know.`,
        judge: judgeJson,
      },
    ),
  ];
}

export function openDataPreflight(config: Config): PreflightCheck[] {
  return OPEN_DATA_PORTALS.flatMap(({ portal }) =>
    portal.cc === "us" ? usProbes(config, portal) : [portalProbe(portal)],
  );
}
