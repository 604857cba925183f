// A 402's header block against the buffer of the proxy usually in front of a seller: nginx holds an upstream's
// whole response head in proxy_buffer_size (4 KB by default) and answers 502 past it. A 402 over that is a 502
// for every buyer behind such a proxy; a 502, or a proxy's own 400 page, where a 402 was expected is most
// often that already happening.
import type { SafeResponse } from "../fetcher/safe-fetcher.ts";
import { type Problem, problem } from "./problems.ts";

/** nginx's default proxy_buffer_size: one memory page. */
const DEFAULT_PROXY_HEAD_BYTES = 4096;

const PROXY_SERVER = /nginx|apache|haproxy|envoy|traefik|openresty/i;

/** The head as the seller sent it: status line, each field as `name: value`, the blank line. */
function headBytes(response: SafeResponse): number {
  let bytes = "HTTP/1.1 402 Payment Required\r\n".length + 2;
  response.headers.forEach((value, name) => {
    bytes += Buffer.byteLength(`${name}: ${value}\r\n`);
  });
  return bytes;
}

/** A 402 whose head would not pass a default nginx. */
export function oversizeChallenge(response: SafeResponse): Problem[] {
  const bytes = headBytes(response);
  if (bytes <= DEFAULT_PROXY_HEAD_BYTES) return [];
  return [
    problem(
      "proxy_header_too_big",
      "warning",
      `the 402's header block is ${bytes} bytes: behind nginx with its default 4 KB proxy buffer this answers 502`,
      "PAYMENT-REQUIRED",
    ),
  ];
}

/** A proxy's own error page rather than the seller's answer: its Server header, or HTML naming it. */
function fromProxy(response: SafeResponse): boolean {
  if (PROXY_SERVER.test(response.headers.get("server") ?? "")) return true;
  const type = response.headers.get("content-type") ?? "";
  return /html/i.test(type) && PROXY_SERVER.test(response.body.toString("utf8", 0, 4000));
}

/** A 502, or a proxy's 400, where an x402 seller should answer 402. */
export function proxyRefusal(response: SafeResponse): Problem[] {
  const { status } = response;
  if (status !== 502 && !(status === 400 && fromProxy(response))) return [];
  return [
    problem(
      "proxy_header_too_big",
      "warning",
      `answered ${status}${fromProxy(response) ? " from the proxy in front of it" : ""} instead of a 402: most often the proxy's buffer refusing the 402's header block`,
    ),
  ];
}
