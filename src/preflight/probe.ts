// The checks a family declares for `npm run preflight`: one cheap request to an upstream (no retries, the
// preflight's timeout), a WebSocket handshake, or a look at a setting.
import type { PreflightCheck, PreflightContext, PreflightVerdict } from "../catalog/product.ts";
import { upstreamBaseUrl } from "../config.ts";
import { errorText } from "../json.ts";
import {
  UpstreamClient,
  UpstreamError,
  type UpstreamRequest,
  type UpstreamResponse,
  type UpstreamSpec,
} from "../upstream/client.ts";

interface HttpProbeOptions {
  /** The name in the table; the upstream's own name by default. */
  label?: string;
  /** What to change when the upstream refuses (401/403) or fails: the settings that matter for it. */
  fix?: string;
  /** Judges the answer; by default 2xx and 304 are ok, 429 a warning and anything else a blocker. */
  judge?: (response: UpstreamResponse, fix: string | undefined) => PreflightVerdict;
}

/** The URL without its query: the query of some upstreams carries the key. */
function shown(url: string): string {
  return url.replace(/\?.*$/, "");
}

export function judgeStatus(response: UpstreamResponse, fix?: string): PreflightVerdict {
  const where = shown(response.url);
  if ((response.status >= 200 && response.status < 300) || response.status === 304)
    return { state: "ok", detail: `HTTP ${response.status} from ${where}` };
  const refused = response.status === 401 || response.status === 403;
  return {
    state: "blocker",
    detail: `HTTP ${response.status} from ${where}${refused ? " (refused)" : ""}`,
    fix: fix ?? "Check the upstream's base URL and credentials.",
  };
}

function failed(error: unknown, client: UpstreamClient, fix: string | undefined): PreflightVerdict {
  if (error instanceof UpstreamError && error.status === 429) {
    return {
      state: "warn",
      detail: `HTTP 429 from ${client.baseUrl}: reachable, but throttled right now`,
      fix: "Wait for the upstream's limit to reset; make sure no other client shares this IP or key.",
    };
  }
  const message = errorText(error);
  return {
    state: "blocker",
    detail: `no usable answer from ${client.baseUrl}: ${message.replace(/\?[^\s)]*/g, "")}`,
    fix: fix ?? `Check that ${client.baseUrl} is reachable from this host.`,
  };
}

/** One GET to `spec`'s base URL (`<NAME>_BASE_URL` applies), judged by status. */
export function httpProbe(
  spec: UpstreamSpec,
  request: UpstreamRequest,
  options: HttpProbeOptions = {},
): PreflightCheck {
  return {
    upstream: options.label ?? spec.name,
    async run(ctx: PreflightContext): Promise<PreflightVerdict> {
      const client = new UpstreamClient(
        { ...spec, retries: 0, timeoutMs: ctx.timeoutMs, minIntervalMs: 0, maxConcurrent: 1 },
        {
          baseUrl: upstreamBaseUrl(ctx.config, spec.name, spec.defaultBaseUrl),
          userAgent: ctx.userAgent,
          ...(ctx.fetchImpl ? { fetchImpl: ctx.fetchImpl } : {}),
        },
      );
      try {
        const response = await client.get(request);
        return (options.judge ?? judgeStatus)(response, options.fix);
      } catch (error) {
        return failed(error, client, options.fix);
      }
    },
  };
}

/** Opens a WebSocket and closes it once the handshake succeeds. */
export function websocketProbe(label: string, url: string, fix?: string): PreflightCheck {
  return {
    upstream: label,
    run: (ctx) =>
      new Promise<PreflightVerdict>((resolve) => {
        const where = url.replace(/\?.*$/, "");
        let socket: WebSocket;
        const finish = (verdict: PreflightVerdict) => {
          clearTimeout(timer);
          try {
            socket.close();
          } catch {}
          resolve(verdict);
        };
        const timer = setTimeout(
          () =>
            finish({
              state: "blocker",
              detail: `no handshake with ${where} within ${ctx.timeoutMs / 1000} s`,
              ...(fix ? { fix } : {}),
            }),
          ctx.timeoutMs,
        );
        try {
          socket = new WebSocket(url);
        } catch (error) {
          finish({
            state: "blocker",
            detail: `cannot open ${where}: ${String(error)}`,
            ...(fix ? { fix } : {}),
          });
          return;
        }
        socket.addEventListener("open", () => finish({ state: "ok", detail: `WebSocket open at ${where}` }));
        socket.addEventListener("error", () =>
          finish({ state: "blocker", detail: `WebSocket to ${where} failed`, ...(fix ? { fix } : {}) }),
        );
      }),
  };
}

/** A check on settings alone (no request). */
export function settingCheck(
  upstream: string,
  verdict: (ctx: PreflightContext) => PreflightVerdict,
): PreflightCheck {
  return { upstream, run: async (ctx) => verdict(ctx) };
}
