// `npm run preflight` for Zefix: one company by EHRA-ID with the credentials, or a warning when they are not
// set (only the Swiss route is then off).
import type { PreflightCheck } from "../../../../catalog/product.ts";
import type { Config } from "../../../../config.ts";
import { httpProbe } from "../../../../preflight/probe.ts";
import { ZEFIX_PASSWORD_SETTING, ZEFIX_UPSTREAM, ZEFIX_USER_SETTING, zefixCredentials } from "./upstream.ts";

export function chPreflight(config: Config): PreflightCheck {
  const credentials = zefixCredentials(config.env);
  if (!credentials) {
    return {
      upstream: ZEFIX_UPSTREAM.name,
      run: async () => ({
        state: "warn",
        detail: `${ZEFIX_USER_SETTING} and ${ZEFIX_PASSWORD_SETTING} are not both set: /v1/gov/ch/companies answers 503 not_configured`,
        fix: `Request Zefix PublicREST credentials from zefix@bj.admin.ch and set ${ZEFIX_USER_SETTING} and ${ZEFIX_PASSWORD_SETTING}.`,
      }),
    };
  }
  const token = Buffer.from(`${credentials.user}:${credentials.password}`).toString("base64");
  return httpProbe(
    ZEFIX_UPSTREAM,
    { path: "/company/ehraid/119283", headers: { authorization: `Basic ${token}` } },
    {
      fix: `Check ${ZEFIX_USER_SETTING} and ${ZEFIX_PASSWORD_SETTING} (Zefix answers 401 to credentials it does not know).`,
    },
  );
}
