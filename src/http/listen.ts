// The HTTP listener: socket limits against slow or oversized clients, and a clear error for a port in use.
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { type Config, ConfigError } from "../config.ts";
import { RequestIdResponse } from "../observability/request-id-response.ts";

/**
 * A payment signature echoes the 402's offer, resource and extensions (Bazaar declaration, signed offers, payment
 * identifier), and on Solana carries the whole transaction: under 4 KB from a client answering PAYMENT-REQUIRED (as
 * @x402/fetch does), up to 18.3 KB from one answering the 402's JSON body with four networks offered
 * (test/payment-signature-size.test.ts). More than 32 KB of headers is refused with 431.
 */
const MAX_REQUEST_HEADER_BYTES = 32 * 1024;
/** Slow clients must not hold sockets: the whole header within 10 s, the whole request within 30 s… */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/** …and an idle keep-alive connection is closed after 5 s, as each answer's `Keep-Alive: timeout=5` tells… */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/**
 * …but the socket is only closed 10 s later. A client honouring the hint stops reusing the connection at 3 s
 * (undici: the hint less 2 s), and one that is busy (signing a payment, a loaded machine) may send its next request
 * seconds after that: the paid retry after a 402 sent on a connection paycall had just closed fails with a socket
 * error the buyer cannot tell from a fault (undici: UND_ERR_SOCKET or ECONNRESET), where Node's own 1 s grace
 * left a client 3 s of lag. At 1,000 buyers the bench's load generator lagged more than that.
 */
export const KEEP_ALIVE_GRACE_MS = 10_000;

type FetchHandler = (request: Request, env: unknown) => Response | Promise<Response>;

/** Listens on config.host:config.port (0: any free port) and resolves once the socket is bound. */
export async function listen(
  config: Config,
  fetch: FetchHandler,
): Promise<{ server: http.Server; port: number }> {
  const server = serve({
    fetch,
    port: config.port,
    hostname: config.host,
    serverOptions: {
      maxHeaderSize: MAX_REQUEST_HEADER_BYTES,
      // Node checks the header and request timeouts on this interval (30 s unless told).
      connectionsCheckingInterval: 1000,
      // Writes X-Request-Id with the other headers (src/observability/request-id-response.ts).
      ServerResponse: RequestIdResponse,
    },
  }) as http.Server;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.keepAliveTimeoutBuffer = KEEP_ALIVE_GRACE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new ConfigError("PORT", `${config.port} is already in use on ${config.host}; choose another PORT`)
          : error,
      );
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}
