// GET /metrics: on the API behind ADMIN_TOKEN (404 to anyone else, as if absent), or on a server of its own
// bound to 127.0.0.1 (METRICS_PORT), where no token is asked: only this machine reaches it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Context } from "hono";
import { bearerAuthorised, presentsCredential } from "../admin/auth.ts";
import type { SignInLimiter } from "../admin/sign-in-limit.ts";
import { ConfigError } from "../config.ts";
import { errorResponse } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "./metrics.ts";

/** Failed sign-ins count as on the admin routes (the same token opens both). */
export interface MetricsGuard {
  signIns: SignInLimiter;
  client: (c: Context) => string;
}

export async function metricsRoute(
  c: Context,
  metrics: Metrics,
  adminToken: string | undefined,
  guard?: MetricsGuard,
) {
  const client = guard?.client(c);
  const wait = client === undefined ? 0 : (guard?.signIns.blockedFor(client) ?? 0);
  if (wait > 0)
    return errorResponse(
      "too_many_sign_in_failures",
      `Retry after ${wait} s.`,
      {},
      { "retry-after": String(wait) },
    );
  if (!bearerAuthorised(c, adminToken)) {
    if (client !== undefined && presentsCredential(c)) guard?.signIns.fail(client);
    return errorResponse("not_found", "No such route.");
  }
  const { body, contentType } = await metrics.scrape();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}

export interface MetricsServer {
  url: string;
  close: () => Promise<void>;
}

export async function startMetricsServer(
  metrics: Metrics,
  port: number,
  log: Logger,
): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = request.url?.split("?")[0];
    if (request.method !== "GET" || path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("GET /metrics\n");
      return;
    }
    metrics.scrape().then(
      ({ body, contentType }) => response.writeHead(200, { "content-type": contentType }).end(body),
      (error: unknown) => {
        log.error({ err: String(error) }, "metrics scrape failed");
        response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("scrape failed\n");
      },
    );
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new ConfigError("METRICS_PORT", `${port} is already in use on 127.0.0.1; choose another`)
          : error,
      ),
    );
    server.listen(port, "127.0.0.1", resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
