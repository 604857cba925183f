// The `domain` parameter: a registered domain name, IDN accepted, normalised to its A-label (punycode) with
// Node's WHATWG `url.domainToASCII` (UTS #46 processing), lower case, without a trailing dot.
import { domainToASCII, domainToUnicode } from "node:url";
import { z } from "zod";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export interface DomainName {
  /** A-label form, lower case: xn--mnchen-3ya.de */
  ascii: string;
  /** U-label form for display, or null when it equals the A-label. */
  unicode: string | null;
  labels: string[];
}

export function parseDomain(raw: string): DomainName | { error: string } {
  const trimmed = raw.trim().replace(/\.$/, "");
  if (trimmed === "") return { error: "domain must not be empty: give a domain such as example.com" };
  if (/[/:@?#\s]/.test(trimmed))
    return { error: "domain must be a bare domain name such as example.com, not a URL or e-mail" };
  const ascii = domainToASCII(trimmed).toLowerCase();
  if (ascii === "") return { error: `domain "${trimmed}" is not a valid domain name (IDNA)` };
  if (ascii.length > 253) return { error: "domain must be at most 253 characters in its A-label form" };
  const labels = ascii.split(".");
  if (labels.length < 2)
    return { error: "domain must have at least two labels, e.g. example.com (a TLD alone is not a domain)" };
  if (!labels.every((label) => LABEL.test(label))) {
    return {
      error:
        "domain labels must be letters, digits and hyphens, 1 to 63 characters, not starting or ending with a hyphen",
    };
  }
  if (/^\d+$/.test(labels.at(-1) as string))
    return { error: "domain must end in a top-level domain, not a number (IP addresses are not looked up)" };
  const unicode = domainToUnicode(ascii);
  return { ascii, unicode: unicode !== ascii ? unicode : null, labels };
}

export const RdapDomainQuery = z.object({
  domain: z
    .string({ error: "domain is required, e.g. example.com" })
    .transform((raw, ctx) => {
      const parsed = parseDomain(raw);
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    })
    .describe("Registered domain name; IDNs accepted (münchen.de) and looked up as their A-label"),
});
