// A response's head (status line and header fields, up to the blank line) as the bytes on the wire: what a
// reverse proxy must hold at once (nginx reads it into proxy_buffer_size and answers 502 past it). Plain HTTP
// over a socket of its own, for the service's local listener and for tests.
import net from "node:net";

interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

export interface ResponseHead {
  status: number;
  /** The head's bytes, the blank line that ends it included. */
  bytes: number;
  head: string;
}

/** Sends one HTTP/1.1 request to an http:// URL and reads its answer's head. */
export function readResponseHead(url: string, request: RawRequest = {}): Promise<ResponseHead> {
  const target = new URL(url);
  if (target.protocol !== "http:") return Promise.reject(new Error(`${url}: only http:// is read raw`));
  const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
  const lines = [
    `${request.method ?? "GET"} ${target.pathname}${target.search} HTTP/1.1`,
    `Host: ${target.host}`,
    "Connection: close",
    ...Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    ...(body ? [`Content-Length: ${body.length}`] : []),
  ];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port || 80), target.hostname);
    socket.setTimeout(request.timeoutMs ?? 10_000, () =>
      socket.destroy(new Error(`${url}: no answer in time`)),
    );
    let received = Buffer.alloc(0);
    socket.on("connect", () => {
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (body) socket.write(body);
    });
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = received.subarray(0, end + 4).toString("latin1");
      socket.destroy();
      resolve({ status: Number(head.slice(9, 12)), bytes: end + 4, head });
    });
    socket.on("error", reject);
    socket.on("end", () => reject(new Error(`${url}: the connection closed before the response head ended`)));
  });
}
