// GET /metrics on a server of its own bound to 127.0.0.1 (METRICS_PORT), where no token is asked: only this
// machine reaches it. The same scrape on the API, behind ADMIN_TOKEN, is an operator route (admin/metrics-route.ts).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "./metrics.ts";

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
