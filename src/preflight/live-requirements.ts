// What live mode needs from the operator, per upstream, as `Family.unavailable` values and preflight checks.
// A family missing something it cannot run without is disabled (never a crash of the whole server); one that
// merely runs worse (anonymous quota, a public instance) gets a preflight warning.
import { type FamilyUnavailable, type PreflightCheck, unavailableWhenLive } from "../catalog/product.ts";
import type { Config } from "../config.ts";
import { settingCheck } from "./probe.ts";

/** The contact `CONTACT_EMAIL` falls back to; mail to `.invalid` (RFC 2606) is never delivered. */
export function hasPlaceholderContact(text: string): boolean {
  return /@[^\s@]*\.invalid\b/i.test(text);
}

export const SEC_ACCESS_DOCS = "https://www.sec.gov/os/accessing-edgar-data";

/** SEC blocks requests whose User-Agent does not declare a reachable contact (403 to generic agents). */
export function secContactUnavailable(config: Config, userAgent: string): FamilyUnavailable | undefined {
  if (!hasPlaceholderContact(userAgent)) return undefined;
  return unavailableWhenLive(config, {
    reason: `SEC requires every request to declare the operator and a reachable contact e-mail, and blocks others; this server would send the placeholder "${userAgent}".`,
    fix: 'Set SEC_USER_AGENT to your organisation and e-mail (e.g. "Acme Data ops@acme.com"), or set OPERATOR_NAME and CONTACT_EMAIL.',
    docs: SEC_ACCESS_DOCS,
  });
}

/** The default LLM upstream (OpenAI) needs a key; another OpenAI-compatible server set by LLM_BASE_URL may not. */
export function llmKeyUnavailable(config: Config, configured: boolean): FamilyUnavailable | undefined {
  if (configured) return undefined;
  return unavailableWhenLive(config, {
    reason: "LLM_API_KEY is not set and the upstream is OpenAI's API, which refuses calls without a key.",
    fix: "Set LLM_API_KEY, or LLM_BASE_URL to an OpenAI-compatible server that needs no key.",
    docs: "https://platform.openai.com/api-keys",
  });
}

/** Overpass's public instances ask for a contact in the User-Agent and suit trials, not production traffic. */
export function overpassContactCheck(defaultBaseUrl: string, variable = "OVERPASS_BASE_URL"): PreflightCheck {
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

/** A key or token that is optional but raises a small anonymous allowance. */
export function optionalKeyCheck(upstream: string, variable: string, without: string): PreflightCheck {
  return settingCheck(`${upstream} (key)`, ({ config }) =>
    (config.env[variable] ?? "").trim() !== ""
      ? { state: "ok", detail: `${variable} is set` }
      : { state: "warn", detail: `${variable} is not set: ${without}`, fix: `Set ${variable}.` },
  );
}
