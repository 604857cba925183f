// Request bodies are capped on every route, chunked or not: a declared length over the cap is refused before
// a byte is read, and a chunked body is refused (413) once it passes the cap, the rest never read.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, test } from "node:test";
import { DEFAULT_MAX_BODY_BYTES } from "../src/catalog/input.ts";
import { startListeningService, type TestService } from "./harness.ts";

let service: TestService;

// A listener: chunked bodies are written to the socket piece by piece, and the cap must stop reading them.
before(async () => {
  service = await startListeningService({ ADMIN_TOKEN: "t".repeat(32) });
});
after(() => service.stop());

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/**
 * POSTs a chunked body of up to `totalBytes` to `path`, writing only as fast as the server reads: the status,
 * and how many bytes the server had taken when it answered. "closed" when the connection broke under a write
 * before the answer was read: after its 413 the server reads on for half a second (@hono/node-server's drain),
 * then closes, and a starved client's next write then meets the reset (EPIPE) and loses the unread 413.
 */
function streamBody(path: string, totalBytes: number): Promise<{ status: number | "closed"; sent: number }> {
  const url = new URL(path, service.url);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const request = http.request(
      url,
      { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
      (response) => {
        answered = true;
        response.resume();
        resolve({ status: response.statusCode ?? 0, sent });
        request.destroy();
      },
    );
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (answered) return;
      if (error.code === "EPIPE" || error.code === "ECONNRESET") resolve({ status: "closed", sent });
      else reject(error);
    });
    const pump = () => {
      while (!answered && sent < totalBytes) {
        sent += CHUNK.length;
        if (!request.write(CHUNK)) return void request.once("drain", pump);
      }
      if (!answered) request.end();
    };
    pump();
  });
}

test("a chunked body over the cap: 413 on every kind of route, the rest never read", async (t) => {
  for (const path of [
    "/v1/llm/chat",
    "/mcp",
    "/admin/refunds/1",
    "/v1/no-such-route",
    "/local-facilitator/verify",
  ]) {
    const { status, sent } = await streamBody(path, 64 * 1024 * 1024);
    if (status === "closed") t.diagnostic(`${path}: the connection closed before the 413 was read`);
    else assert.equal(status, 413, path);
    // Kernel socket buffers take some before the server stops reading; 64 MB were on offer.
    assert.ok(sent < 8 * 1024 * 1024, `${path}: ${sent} bytes sent before the 413`);
  }
});

test("a declared length over the cap: 413 at once; a body within it is read as before", async () => {
  const over = await fetch(`${service.url}/v1/llm/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": String(DEFAULT_MAX_BODY_BYTES + 1) },
    body: "x".repeat(DEFAULT_MAX_BODY_BYTES + 1),
  });
  assert.equal(over.status, 413);
  const body = (await over.json()) as { error: string; charged: boolean };
  assert.deepEqual([body.error, body.charged], ["body_too_large", false]);
  const within = await fetch(`${service.url}/v1/llm/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "Hello" }] }),
  });
  assert.equal(within.status, 402, "a small chunked-or-not body reaches the route");
});
