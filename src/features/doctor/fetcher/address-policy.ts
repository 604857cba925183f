// Which addresses and URLs a user-supplied fetch may reach: public unicast addresses on ports 80 and 443,
// over http or https, without credentials. Everything else is refused with a named reason.
import net from "node:net";
import ipaddr from "ipaddr.js";

export type RefusalReason =
  | "invalid_url"
  | "scheme_not_allowed"
  | "port_not_allowed"
  | "credentials_in_url"
  | "address_not_public"
  | "host_not_resolved"
  | "too_many_redirects"
  | "redirect_without_location";

/** A request the guard would not make; nothing was sent. */
export class FetchRefusedError extends Error {
  readonly reason: RefusalReason;
  readonly url: string;
  readonly code = "DOCTOR_FETCH_REFUSED";
  constructor(reason: RefusalReason, url: string, message: string) {
    super(message);
    this.name = "FetchRefusedError";
    this.reason = reason;
    this.url = url;
  }
}

export const DEFAULT_PORTS: ReadonlySet<number> = new Set([80, 443]);

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse("2000::");

/** Why an IP address is not a public unicast address, or undefined when it is one. */
export function nonPublicRange(address: string): string | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (!net.isIP(bare) || !ipaddr.isValid(bare)) return "not an IP address";
  // process() turns IPv4-mapped IPv6 (::ffff:a.b.c.d) into the IPv4 address it carries.
  const parsed = ipaddr.process(bare);
  const range = parsed.range();
  if (range !== "unicast") return range;
  if (parsed.kind() === "ipv6" && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6, 3)) {
    // Outside 2000::/3 (e.g. IPv4-compatible ::a.b.c.d): nothing public lives there.
    return "not global unicast";
  }
  return undefined;
}

export function isPublicAddress(address: string): boolean {
  return nonPublicRange(address) === undefined;
}

export function stripBrackets(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

export function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

export function hostKey(hostname: string, port: number): string {
  const bare = stripBrackets(hostname).toLowerCase();
  return net.isIPv6(bare) ? `[${bare}]:${port}` : `${bare}:${port}`;
}

export interface UrlPolicy {
  allowHosts: ReadonlySet<string>;
  allowedPorts: ReadonlySet<number>;
}

/**
 * Checks what can be checked without DNS: scheme, credentials, port and literal IP hosts (the WHATWG parser
 * has already turned decimal, octal and hex IPv4 forms into dotted quads). Returns the parsed URL.
 */
export function checkUrl(raw: string | URL, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = typeof raw === "string" ? new URL(raw) : raw;
  } catch {
    throw new FetchRefusedError("invalid_url", String(raw), "not an absolute URL");
  }
  const shown = url.href;
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchRefusedError(
      "scheme_not_allowed",
      shown,
      `scheme ${url.protocol} is not allowed; use http or https`,
    );
  }
  if (url.username || url.password) {
    throw new FetchRefusedError(
      "credentials_in_url",
      shown,
      "URLs carrying a user name or password are not fetched",
    );
  }
  const port = effectivePort(url);
  if (policy.allowHosts.has(hostKey(url.hostname, port))) return url;
  if (!policy.allowedPorts.has(port)) {
    throw new FetchRefusedError("port_not_allowed", shown, `port ${port} is not allowed; only 80 and 443`);
  }
  const host = stripBrackets(url.hostname);
  if (net.isIP(host)) {
    const range = nonPublicRange(host);
    if (range) {
      throw new FetchRefusedError("address_not_public", shown, `${host} is not a public address (${range})`);
    }
  }
  return url;
}
