// The only way the doctor reaches a user-supplied URL. Every address a host resolves to is checked inside
// the connector, and the socket goes to the address that was checked, so a DNS answer cannot change between
// check and use. Redirects are followed by hand and re-checked; bodies are capped; proxies, cookies and
// credentials are never used.
import dns from "node:dns";
import net from "node:net";
import { Agent, buildConnector, request } from "undici";
import { errorText } from "../../../json.ts";
import {
  checkUrl,
  DEFAULT_PORTS,
  FetchRefusedError,
  hostKey,
  nonPublicRange,
  stripBrackets,
  type UrlPolicy,
} from "./address-policy.ts";

interface ResolvedAddress {
  address: string;
  family: number;
}

/** Host name → every address it resolves to. Injected in tests to stand in for DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

interface SafeFetcherOptions {
  timeoutMs: number;
  maxBodyBytes: number;
  userAgent: string;
  allowHosts?: ReadonlySet<string>;
  allowedPorts?: ReadonlySet<number>;
  resolve?: Resolver;
  maxRedirects?: number;
}

export interface SafeRequest {
  url: string;
  method?: "GET" | "POST" | "HEAD" | "OPTIONS";
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Default true; false returns a 3xx as it is. */
  followRedirects?: boolean;
}

export interface SafeResponse {
  /** The URL of the final hop. */
  url: string;
  status: number;
  headers: Headers;
  body: Buffer;
  /** The body was longer than the cap and was cut. */
  truncated: boolean;
  /** Every URL redirected to, in order. */
  redirects: string[];
  /** From sending the final hop to its response headers, in ms. */
  latencyMs: number;
}

type FailureKind = "timeout" | "dns" | "unreachable" | "tls" | "protocol";

/** The request was allowed but the seller could not be reached or did not answer in time. */
export class FetchFailedError extends Error {
  readonly kind: FailureKind;
  readonly url: string;
  constructor(kind: FailureKind, url: string, message: string) {
    super(message);
    this.name = "FetchFailedError";
    this.kind = kind;
    this.url = url;
  }
}

const FORBIDDEN_HEADERS = new Set(["cookie", "authorization", "proxy-authorization", "host", "connection"]);
const PAYMENT_HEADERS = new Set(["payment-signature", "x-payment"]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
export const MAX_REDIRECTS = 5;

function errorCode(error: unknown): string {
  const own = (error as { code?: unknown })?.code;
  const cause = (error as { cause?: { code?: unknown } })?.cause?.code;
  return String(own ?? cause ?? "");
}

function classifyFailure(error: unknown, url: string): Error {
  if (error instanceof FetchRefusedError || error instanceof FetchFailedError) return error;
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof FetchRefusedError || cause instanceof FetchFailedError) return cause;
  const code = errorCode(error);
  const name = (error as { name?: string })?.name ?? "";
  const detail = errorText(error);
  if (
    /TIMEOUT/.test(code) ||
    code === "UND_ERR_ABORTED" ||
    name === "TimeoutError" ||
    name === "AbortError"
  ) {
    return new FetchFailedError("timeout", url, `no answer in time (${code || name})`);
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ENODATA") {
    return new FetchFailedError("dns", url, `the host name does not resolve (${code})`);
  }
  if (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|UNABLE_TO|SELF_SIGNED|ERR_OSSL)/.test(code)) {
    return new FetchFailedError("tls", url, `TLS failed: ${code}`);
  }
  if (/^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)) {
    return new FetchFailedError("unreachable", url, `connection failed (${code})`);
  }
  return new FetchFailedError("protocol", url, `request failed: ${detail}`);
}

export class SafeFetcher {
  private readonly options: Required<Omit<SafeFetcherOptions, "allowHosts" | "allowedPorts">>;
  private readonly policy: UrlPolicy;
  private readonly agent: Agent;

  constructor(options: SafeFetcherOptions) {
    this.options = {
      timeoutMs: options.timeoutMs,
      maxBodyBytes: options.maxBodyBytes,
      userAgent: options.userAgent,
      resolve: options.resolve ?? systemResolver,
      maxRedirects: options.maxRedirects ?? MAX_REDIRECTS,
    };
    this.policy = {
      allowHosts: options.allowHosts ?? new Set(),
      allowedPorts: options.allowedPorts ?? DEFAULT_PORTS,
    };
    const base = buildConnector({ timeout: options.timeoutMs });
    const resolve = this.options.resolve;
    const policy = this.policy;
    // undici calls this for every new connection, including each redirect hop to a new origin.
    const guarded: buildConnector.connector = (opts, callback) => {
      const hostname = stripBrackets(opts.hostname);
      const port = Number(opts.port) || (opts.protocol === "https:" ? 443 : 80);
      const shown = `${opts.protocol}//${opts.host ?? hostname}`;
      const allowed = policy.allowHosts.has(hostKey(hostname, port));
      const pick = async (): Promise<string> => {
        if (!allowed && !policy.allowedPorts.has(port)) {
          throw new FetchRefusedError("port_not_allowed", shown, `port ${port} is not allowed`);
        }
        const addresses = net.isIP(hostname)
          ? [{ address: hostname, family: net.isIP(hostname) }]
          : await resolve(hostname);
        if (addresses.length === 0) throw new FetchFailedError("dns", shown, "the host name has no address");
        if (!allowed) {
          for (const { address } of addresses) {
            const range = nonPublicRange(address);
            if (range) {
              throw new FetchRefusedError(
                "address_not_public",
                shown,
                `${hostname} resolves to ${address}, which is not a public address (${range})`,
              );
            }
          }
        }
        // IPv4 first: hosts without an IPv6 route would otherwise fail on their AAAA answer.
        const preferred = addresses.find((a) => net.isIPv4(a.address)) ?? addresses[0];
        return (preferred as ResolvedAddress).address;
      };
      pick().then(
        (address) => {
          try {
            base({ ...opts, hostname: address }, callback);
          } catch (error) {
            callback(error as Error, null);
          }
        },
        (error: Error) => callback(error, null),
      );
    };
    this.agent = new Agent({
      connect: guarded,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 2000,
      connections: 16,
    });
  }

  /** Sends the request (and follows redirects), or throws FetchRefusedError / FetchFailedError. */
  async fetch(req: SafeRequest): Promise<SafeResponse> {
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    let url = checkUrl(req.url, this.policy);
    let method = req.method ?? "GET";
    let body = req.body;
    const headers: Record<string, string> = {
      "user-agent": this.options.userAgent,
      accept: "application/json, */*;q=0.5",
    };
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      if (!FORBIDDEN_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    const redirects: string[] = [];
    for (;;) {
      const started = performance.now();
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(url, {
          dispatcher: this.agent,
          method,
          headers,
          ...(body !== undefined && method !== "GET" && method !== "HEAD" ? { body } : {}),
          signal: deadline,
        });
      } catch (error) {
        throw classifyFailure(error, url.href);
      }
      const latencyMs = Math.round(performance.now() - started);
      const location = response.headers.location;
      if (req.followRedirects !== false && REDIRECTS.has(response.statusCode)) {
        await response.body.dump().catch(() => undefined);
        if (typeof location !== "string" || location === "") {
          throw new FetchRefusedError("redirect_without_location", url.href, "a redirect without a Location");
        }
        if (redirects.length >= this.options.maxRedirects) {
          throw new FetchRefusedError(
            "too_many_redirects",
            url.href,
            `more than ${this.options.maxRedirects} redirects`,
          );
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new FetchRefusedError("invalid_url", location, "the redirect Location is not a URL");
        }
        next = checkUrl(next, this.policy);
        if (next.origin !== url.origin) {
          for (const name of PAYMENT_HEADERS) delete headers[name];
        }
        if (
          response.statusCode === 303 ||
          ((response.statusCode === 301 || response.statusCode === 302) && method === "POST")
        ) {
          method = "GET";
          body = undefined;
          delete headers["content-type"];
        }
        redirects.push(next.href);
        url = next;
        continue;
      }
      const { buffer, truncated } = await this.readCapped(response.body, url.href, method);
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        if (value === undefined || name === "set-cookie") continue;
        for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
      }
      return {
        url: url.href,
        status: response.statusCode,
        headers: responseHeaders,
        body: buffer,
        truncated,
        redirects,
        latencyMs,
      };
    }
  }

  private async readCapped(
    stream: AsyncIterable<Buffer> & { destroy: () => void },
    url: string,
    method: string,
  ): Promise<{ buffer: Buffer; truncated: boolean }> {
    if (method === "HEAD") return { buffer: Buffer.alloc(0), truncated: false };
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of stream) {
        const room = this.options.maxBodyBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          stream.destroy();
          return { buffer: Buffer.concat(chunks), truncated: true };
        }
        chunks.push(chunk);
        size += chunk.length;
      }
    } catch (error) {
      throw classifyFailure(error, url);
    }
    return { buffer: Buffer.concat(chunks), truncated: false };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
