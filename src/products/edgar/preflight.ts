// What the EDGAR family needs before going live: a User-Agent SEC accepts, and one cheap request to each SEC host.
import { type FamilyUnavailable, type PreflightCheck, unavailableWhenLive } from "../../catalog/product.ts";
import type { Config } from "../../config.ts";
import { hasPlaceholderContact } from "../../preflight/live-requirements.ts";
import { httpProbe } from "../../preflight/probe.ts";
import { SEC_DATA_UPSTREAM, SEC_WWW_UPSTREAM, TICKERS_PATH } from "./upstream.ts";

const SEC_ACCESS_DOCS = "https://www.sec.gov/os/accessing-edgar-data";

/** SEC blocks requests whose User-Agent does not declare a reachable contact (403 to generic agents). */
export function secContactUnavailable(config: Config, userAgent: string): FamilyUnavailable | undefined {
  if (!hasPlaceholderContact(userAgent)) return undefined;
  return unavailableWhenLive(config, {
    reason: `SEC requires every request to declare the operator and a reachable contact e-mail, and blocks others; this server would send the placeholder "${userAgent}".`,
    fix: 'Set SEC_USER_AGENT to your organisation and e-mail (e.g. "Acme Data ops@acme.com"), or set OPERATOR_NAME and CONTACT_EMAIL.',
    docs: SEC_ACCESS_DOCS,
  });
}

/** SEC: Apple's submissions on data.sec.gov and the ticker file on www.sec.gov, with the declared User-Agent. */
export function secPreflight(userAgent: string): PreflightCheck[] {
  const fix = "SEC refuses undeclared agents with 403: set SEC_USER_AGENT to your organisation and e-mail.";
  const headers = { "user-agent": userAgent, accept: "application/json" };
  return [
    httpProbe(SEC_DATA_UPSTREAM, { path: "/submissions/CIK0000320193.json", headers }, { fix }),
    httpProbe(SEC_WWW_UPSTREAM, { path: TICKERS_PATH, headers }, { fix }),
  ];
}
