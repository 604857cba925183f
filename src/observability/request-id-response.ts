// The HTTP server's response class: it writes the request id into the headers handed to writeHead. Setting it
// with setHeader beforehand would make Node merge every other header into its own list one by one, a few
// microseconds on each 402 (its PAYMENT-REQUIRED header is kilobytes long).
import http from "node:http";

export class RequestIdResponse<
  Request extends http.IncomingMessage = http.IncomingMessage,
> extends http.ServerResponse<Request> {
  /** Set by the request middleware (requests.ts) before the app answers. */
  requestId: string | undefined;

  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const id = this.requestId;
    if (id !== undefined) {
      const last = rest.length - 1;
      const headers = rest[last];
      if (last >= 0 && headers && typeof headers === "object" && !Array.isArray(headers)) {
        // A copy: the object may be a constant shared by every response of one kind.
        rest[last] = { ...headers, "x-request-id": id };
      } else if (!this.hasHeader("x-request-id")) {
        this.setHeader("x-request-id", id);
      }
    }
    return (super.writeHead as (statusCode: number, ...rest: unknown[]) => this)(statusCode, ...rest);
  }
}
