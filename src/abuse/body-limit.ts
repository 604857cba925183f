// Request bodies are read here, as they arrive, with a hard cap: a declared length over it is refused before a
// byte is read, and a chunked body is refused (413) at the chunk that passes it, the rest never read. What the
// routes read after is the buffered body, at most the cap, so no route can be made to hold more.
import type { Context, MiddlewareHandler } from "hono";
import { errorResponse } from "../errors.ts";

/** The bodies read for routes that take them as bytes, by the request that carried them. */
const bodiesRead = new WeakMap<Request, Buffer>();

/**
 * The body read under the cap for a route that takes it as bytes (`takesBytes` of limitBodies); undefined when
 * the request declared none. Such a route's request keeps its headers, but its body is spent.
 */
export function cappedBody(c: Context): Buffer | undefined {
  return bodiesRead.get(c.req.raw);
}

function tooLarge(maxBytes: number): Response {
  return errorResponse(
    "body_too_large",
    `The body is larger than ${maxBytes} bytes; nothing was charged.`,
    {},
    { connection: "close" },
  );
}

/** The body, read chunk by chunk: its bytes, or undefined as soon as it passes `maxBytes` (reading stops). */
async function readCapped(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Buffer | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/**
 * A body of a declared length (already within the cap), read whole: the HTTP parser stops at the declared
 * length, and @hono/node-server reads it straight from the socket's stream, without the full Request and the
 * web stream that reading `body` makes it build. Checked against the cap again all the same.
 */
async function readDeclared(request: Request, maxBytes: number): Promise<Buffer | undefined> {
  const bytes = Buffer.from(await request.arrayBuffer());
  return bytes.byteLength > maxBytes ? undefined : bytes;
}

/**
 * Caps every request body at `maxBytes(path)`; routes see the request with its body already read. A route that
 * `takesBytes` gets the bytes (cappedBody) instead of a new Request around them, whose making costs more than
 * reading the body (a tenth of an MCP paid call's server CPU).
 */
export function limitBodies(
  maxBytes: (path: string) => number,
  takesBytes: (path: string) => boolean = () => false,
): MiddlewareHandler {
  return async (c, next) => {
    // Method and headers only: touching the body of @hono/node-server's light request builds a full Request,
    // which would cost every GET about 0.2 ms.
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const declared = c.req.header("content-length");
    if (declared === undefined && c.req.header("transfer-encoding") === undefined) return next();
    const max = maxBytes(c.req.path);
    if (declared !== undefined && !(Number(declared) <= max)) return tooLarge(max);
    const raw = c.req.raw;
    const stream = declared === undefined ? raw.body : undefined;
    if (stream === null) return next();
    let bytes: Buffer | undefined;
    try {
      bytes = stream ? await readCapped(stream, max) : await readDeclared(raw, max);
    } catch {
      // The client went away mid-body: nobody is left to answer.
      return errorResponse("body_incomplete");
    }
    if (bytes === undefined) return tooLarge(max);
    if (takesBytes(c.req.path)) {
      bodiesRead.set(raw, bytes);
      return next();
    }
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body: bytes.byteLength > 0 ? bytes : null,
      signal: raw.signal,
    });
    return next();
  };
}
