// The weather checks `npm run preflight` runs: a contact in the User-Agent, and the NWS API root.
import type { PreflightCheck } from "../../catalog/product.ts";
import { hasPlaceholderContact } from "../../preflight/live-requirements.ts";
import { httpProbe, settingCheck } from "../../preflight/probe.ts";
import { NWS_UPSTREAM } from "./upstream.ts";

export const weatherPreflight: PreflightCheck[] = [
  settingCheck("nws (contact)", ({ userAgent }) =>
    hasPlaceholderContact(userAgent)
      ? {
          state: "warn",
          detail: `NWS asks for a contact in the User-Agent; this server would send "${userAgent}"`,
          fix: "Set CONTACT_EMAIL to a reachable address so NWS can reach you before blocking.",
        }
      : { state: "ok", detail: "the User-Agent carries a contact" },
  ),
  httpProbe(NWS_UPSTREAM, { path: "/", headers: { accept: "application/json" } }),
];
