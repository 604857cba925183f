// The mountain checks `npm run preflight` runs: Overpass's contact rule and its /status page.
import type { PreflightCheck } from "../../catalog/product.ts";
import { hasPlaceholderContact } from "../../preflight/live-requirements.ts";
import { httpProbe, settingCheck } from "../../preflight/probe.ts";
import { OVERPASS_UPSTREAM } from "./osm/overpass.ts";

/** Overpass's public instances ask for a contact in the User-Agent and suit trials, not production traffic. */
function overpassContactCheck(defaultBaseUrl: string, variable = "OVERPASS_BASE_URL"): PreflightCheck {
  return settingCheck("overpass (contact)", ({ config, userAgent }) => {
    const ownInstance = (config.env[variable] ?? "").trim() !== "" && config.env[variable] !== defaultBaseUrl;
    if (ownInstance) return { state: "ok", detail: `own Overpass instance (${variable})` };
    if (hasPlaceholderContact(userAgent)) {
      return {
        state: "blocker",
        detail: `the public instance ${defaultBaseUrl} would get the placeholder contact: "${userAgent}"`,
        fix: `Set CONTACT_EMAIL to a reachable address, or ${variable} to your own Overpass instance.`,
      };
    }
    return {
      state: "warn",
      detail: `the public instance ${defaultBaseUrl} (shared, throttled; fine for trials)`,
      fix: `For production, run your own Overpass instance and set ${variable}.`,
    };
  });
}

/** Overpass: the contact rule for the public instance, and its /status page (free slots, no query run). */
export function overpassPreflight(): PreflightCheck[] {
  return [
    overpassContactCheck(OVERPASS_UPSTREAM.defaultBaseUrl),
    httpProbe(
      OVERPASS_UPSTREAM,
      { path: "/status", headers: { accept: "text/plain" } },
      {
        fix: "Check OVERPASS_BASE_URL; the public instance may be busy, your own instance is recommended.",
      },
    ),
  ];
}
