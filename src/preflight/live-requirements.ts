// Pieces the families build their live requirements from (each family's preflight.ts): a family missing
// something it cannot run without is disabled (never a crash of the whole server); one that merely runs worse
// (anonymous quota, a public instance) gets a preflight warning.
import type { PreflightCheck } from "../catalog/product.ts";
import { settingCheck } from "./probe.ts";

/** The contact `CONTACT_EMAIL` falls back to; mail to `.invalid` (RFC 2606) is never delivered. */
export function hasPlaceholderContact(text: string): boolean {
  return /@[^\s@]*\.invalid\b/i.test(text);
}

/** A key or token that is optional but raises a small anonymous allowance. */
export function optionalKeyCheck(upstream: string, variable: string, without: string): PreflightCheck {
  return settingCheck(`${upstream} (key)`, ({ config }) =>
    (config.env[variable] ?? "").trim() !== ""
      ? { state: "ok", detail: `${variable} is set` }
      : { state: "warn", detail: `${variable} is not set: ${without}`, fix: `Set ${variable}.` },
  );
}
