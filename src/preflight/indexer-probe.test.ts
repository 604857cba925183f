// The preflight's indexer view: every paid route probed bare at PUBLIC_URL, and the routes an indexer could not
// list named with why; behind a proxy that refuses the 402's head, the proxy setting to change.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { startListeningService, type TestService } from "../../test/harness.ts";
import { probeAsIndexer } from "./indexer-probe.ts";
import { readResponseHead } from "./response-head.ts";

let service: TestService;
let seller: http.Server;
let sellerUrl: string;
let proxy: http.Server;
let proxyUrl: string;

/**
 * A stand-in for a reverse proxy whose response buffer holds `bufferBytes` of head: like nginx, it reads the
 * upstream's head and answers its own 502 page when the head does not fit, else passes the answer on.
 */
function smallBufferProxy(upstream: () => string, bufferBytes: number): http.Server {
  return http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? Buffer.concat(chunks).toString("utf8") : undefined;
    const target = `${upstream()}${req.url}`;
    const headers = { "content-type": String(req.headers["content-type"] ?? "application/json") };
    const head = await readResponseHead(target, {
      method: req.method ?? "GET",
      headers,
      ...(body ? { body } : {}),
    });
    if (head.bytes > bufferBytes) {
      res.writeHead(502, { server: "nginx/1.22.1", "content-type": "text/html" });
      res.end(
        "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.22.1</center></body></html>",
      );
      return;
    }
    const answer = await fetch(target, { method: req.method ?? "GET", headers, ...(body ? { body } : {}) });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
}

// A listener: the probe measures the 402 heads on the wire, directly and through a proxy.
before(async () => {
  service = await startListeningService({ NETWORKS: "base,base-sepolia" });
  // A seller whose one paid route validates before its paywall (as most listings that degrade do).
  seller = http.createServer((req, res) => {
    if (req.url === "/openapi.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ paths: { "/v1/search": { get: { "x-payment-info": {} } } } }));
      return;
    }
    res.writeHead(400, { "content-type": "application/json" });
    res.end('{"error":"q is required"}');
  });
  await new Promise<void>((resolve) => seller.listen(0, "127.0.0.1", resolve));
  sellerUrl = `http://127.0.0.1:${(seller.address() as AddressInfo).port}`;
  // A 2 KB buffer: smaller than every paycall 402's head (2.4 KB and up), as a 4 KB one is for larger 402s.
  proxy = smallBufferProxy(() => service.url, 2048);
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
after(async () => {
  await service.stop();
  await new Promise<void>((resolve) => seller.close(() => resolve()));
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
});

test("paycall itself: every paid route answers its bare probe with a listable challenge", async () => {
  const findings = await probeAsIndexer(service.url, fetch, 10_000);
  assert.equal(findings.length, 1, JSON.stringify(findings.slice(1, 4)));
  assert.equal(findings[0]?.verdict.state, "ok");
  assert.match(findings[0]?.verdict.detail ?? "", /^(\d+) of \1 paid routes answer/);
});

test("a route that validates before its paywall is named, with why", async () => {
  const findings = await probeAsIndexer(sellerUrl, fetch, 5_000);
  assert.deepEqual(
    findings.map((f) => [f.route, f.verdict.state]),
    [
      ["paid routes", "blocker"],
      ["GET /v1/search", "blocker"],
    ],
  );
  assert.match(findings[1]?.verdict.detail ?? "", /answers its bare probe with 400, not 402/);
});

test("a PUBLIC_URL nobody answers at is a warning to start the service, not a blocker", async () => {
  const findings = await probeAsIndexer("http://127.0.0.1:1", fetch, 2_000);
  assert.equal(findings.length, 1);
  assert.equal(findings[0]?.verdict.state, "warn");
  assert.match(findings[0]?.verdict.fix ?? "", /Start the service/);
});

test("behind a proxy that refuses the 402's head: each paid route is a blocker naming the buffer settings", async () => {
  const findings = await probeAsIndexer(proxyUrl, fetch, 10_000, service.url);
  const [summary, ...routes] = findings;
  assert.equal(summary?.verdict.state, "blocker");
  assert.match(summary?.verdict.detail ?? "", /^0 of \d+ paid routes/);
  assert.match(
    summary?.verdict.detail ?? "",
    /largest 402 response head on the service's own listener is \d{4} bytes/,
  );
  const fx = routes.find((f) => f.route === "GET /v1/macro/ecb/fx");
  assert.equal(fx?.verdict.state, "blocker");
  assert.match(fx?.verdict.detail ?? "", /through PUBLIC_URL it answers 502.*own listener answers 402/);
  for (const setting of [
    "proxy_buffer_size",
    "proxy_buffers",
    "LimitRequestFieldSize",
    "ProxyIOBufferSize",
    "tune.bufsize",
  ]) {
    assert.ok(fx?.verdict.fix?.includes(setting), setting);
  }
});

test("a 402 whose head passes 4 KB is a warning naming the proxy buffer, measured on the service's listener", async () => {
  const big = http.createServer((req, res) => {
    if (req.url === "/openapi.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ paths: { "/v1/big": { get: { "x-payment-info": {} } } } }));
      return;
    }
    const required = {
      x402Version: 2,
      resource: { url: "http://seller.example/v1/big", description: "x".repeat(4000) },
      accepts: [{ scheme: "exact", network: "eip155:8453", amount: "1", asset: "0x0", payTo: "0x0" }],
      extensions: {
        bazaar: { info: { input: { type: "http", method: "GET" } }, schema: { type: "object" } },
      },
    };
    res.writeHead(402, { "payment-required": Buffer.from(JSON.stringify(required)).toString("base64") });
    res.end("{}");
  });
  await new Promise<void>((resolve) => big.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(big.address() as AddressInfo).port}`;
  try {
    const findings = await probeAsIndexer(url, fetch, 5_000, url);
    assert.deepEqual(
      findings.map((f) => [f.route, f.verdict.state]),
      [
        ["paid routes", "warn"],
        ["GET /v1/big", "warn"],
      ],
    );
    assert.match(findings[1]?.verdict.detail ?? "", /response head is \d{4} bytes: .*nginx 4 KB/);
    assert.match(findings[1]?.verdict.fix ?? "", /proxy_buffer_size/);
  } finally {
    await new Promise<void>((resolve) => big.close(() => resolve()));
  }
});

test("paycall's own listener: every 402 head fits, no row but the summary", async () => {
  const findings = await probeAsIndexer(service.url, fetch, 10_000, service.url);
  assert.equal(findings.length, 1, JSON.stringify(findings.slice(1, 4)));
  assert.equal(findings[0]?.verdict.state, "ok");
  assert.match(findings[0]?.verdict.detail ?? "", /largest 402 response head .* is \d{4} bytes/);
});
