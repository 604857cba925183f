import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { type ClientOptions, UpstreamClient, UpstreamError, type UpstreamSpec } from "./client.ts";
import { loadRecordings, RecordingIndex } from "./recordings.ts";

const UA = "paycall-test/1.0 (+http://localhost; ops@example.invalid)";
/** Every computed backoff is shrunk to a thousandth (1 s → 1 ms). */
const FAST = 0.001;

interface Hit {
  url: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

interface TestServer {
  url: string;
  hits: Hit[];
  close: () => Promise<void>;
}

const servers: TestServer[] = [];

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void) {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ url: req.url ?? "", headers: req.headers, at: performance.now() });
    handler(req, res, hits.length);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const s: TestServer = {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(s);
  return s;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function client(
  baseUrl: string,
  spec: Partial<UpstreamSpec> = {},
  backoffScale = FAST,
  options: Partial<ClientOptions> = {},
) {
  return new UpstreamClient(
    { name: "testup", defaultBaseUrl: "http://unused.invalid", minIntervalMs: 0, ...spec },
    { baseUrl, userAgent: UA, backoffScale, ...options },
  );
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

describe("UpstreamClient: requests", () => {
  test("sends the User-Agent, extra headers and the defined query parameters", async () => {
    const server = await serve((_req, res) => json(res, 200, { ok: true }, { "x-upstream": "yes" }));
    const response = await client(`${server.url}/api/`).get({
      path: "/v1/rates",
      query: { base: "EUR", limit: 5, skip: undefined, q: "a b&c" },
      headers: { accept: "application/json" },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { ok: true });
    assert.equal(response.headers.get("x-upstream"), "yes");
    assert.equal(response.notModified, false);
    assert.equal(response.recordedSample, false);
    assert.equal(server.hits.length, 1);
    const hit = server.hits[0]!;
    const url = new URL(hit.url, server.url);
    assert.equal(url.pathname, "/api/v1/rates");
    assert.deepEqual(Object.fromEntries(url.searchParams), { base: "EUR", limit: "5", q: "a b&c" });
    assert.equal(response.url, `${server.url}${hit.url}`);
    assert.equal(hit.headers["user-agent"], UA);
    assert.equal(hit.headers.accept, "application/json");
    assert.equal(hit.headers["if-none-match"], undefined);
    assert.equal(hit.headers["if-modified-since"], undefined);
  });

  test("a 404 is returned as is and not retried", async () => {
    const server = await serve((_req, res) => json(res, 404, { error: "no such thing" }));
    const response = await client(server.url, { retries: 3 }).get({ path: "/missing" });
    assert.equal(response.status, 404);
    assert.deepEqual(JSON.parse(response.body), { error: "no such thing" });
    assert.equal(server.hits.length, 1);
  });

  test("with an etag it sends If-None-Match and a 304 is reported as not modified", async () => {
    const server = await serve((req, res) => {
      if (req.headers["if-none-match"] === '"v1"') {
        res.writeHead(304, { etag: '"v1"' });
        res.end();
      } else json(res, 200, { fresh: true }, { etag: '"v2"' });
    });
    const c = client(server.url);
    const cached = await c.get({ path: "/doc", etag: '"v1"', lastModified: "Sat, 01 Mar 2025 10:00:00 GMT" });
    assert.equal(cached.status, 304);
    assert.equal(cached.notModified, true);
    assert.equal(cached.body, "");
    assert.equal(server.hits[0]!.headers["if-none-match"], '"v1"');
    assert.equal(server.hits[0]!.headers["if-modified-since"], "Sat, 01 Mar 2025 10:00:00 GMT");

    const changed = await c.get({ path: "/doc", etag: '"old"' });
    assert.equal(changed.status, 200);
    assert.equal(changed.notModified, false);
    assert.equal(changed.headers.get("etag"), '"v2"');
    assert.deepEqual(JSON.parse(changed.body), { fresh: true });
    assert.equal(server.hits.length, 2);
  });
});

describe("UpstreamClient: retries", () => {
  test("retries a 503 and returns the answer that follows", async () => {
    const server = await serve((_req, res, n) => {
      if (n === 1) json(res, 503, { error: "busy" });
      else json(res, 200, { attempt: n });
    });
    const response = await client(server.url, { retries: 3 }).get({ path: "/x" });
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { attempt: 2 });
    assert.equal(server.hits.length, 2);
  });

  test("a 429 with Retry-After: 1 is retried", async () => {
    const server = await serve((_req, res, n) => {
      if (n === 1) json(res, 429, { error: "slow down" }, { "retry-after": "1" });
      else json(res, 200, { ok: true });
    });
    const response = await client(server.url, { retries: 1 }).get({ path: "/x" });
    assert.equal(response.status, 200);
    assert.equal(server.hits.length, 2);
  });

  test("the wait before the retry follows Retry-After (scaled), not the default backoff", async () => {
    const server = await serve((_req, res, n) => {
      if (n === 1) json(res, 429, {}, { "retry-after": "4" });
      else json(res, 200, {});
    });
    // scale 0.05: Retry-After 4 s → 200 ms; the default first backoff would be at most 50 ms.
    const response = await client(server.url, { retries: 1 }, 0.05).get({ path: "/x" });
    assert.equal(response.status, 200);
    const gap = server.hits[1]!.at - server.hits[0]!.at;
    assert.ok(gap >= 190, `retried after ${gap.toFixed(0)} ms, expected about 200 ms`);
    assert.ok(gap < 1500, `retried after ${gap.toFixed(0)} ms`);
  });

  test("a Retry-After longer than maxRetryAfterMs fails at once", async () => {
    const server = await serve((_req, res) => json(res, 429, {}, { "retry-after": "300" }));
    const started = performance.now();
    await assert.rejects(
      client(server.url, { retries: 3, maxRetryAfterMs: 60_000 }).get({ path: "/x" }),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamError);
        assert.equal(error.upstream, "testup");
        assert.equal(error.status, 429);
        assert.match(error.message, /^testup: asked to retry after 300 s/);
        return true;
      },
    );
    assert.equal(server.hits.length, 1);
    assert.ok(performance.now() - started < 1000);
  });

  test("after the last retry it throws an UpstreamError with the status", async () => {
    const server = await serve((_req, res) => json(res, 502, { error: "bad gateway" }));
    await assert.rejects(client(server.url, { retries: 2 }).get({ path: "/x" }), (error: unknown) => {
      assert.ok(error instanceof UpstreamError);
      assert.equal(error.status, 502);
      assert.match(error.message, /HTTP 502/);
      return true;
    });
    assert.equal(server.hits.length, 3);
  });

  test("a server that never answers times out, and the error says so", async () => {
    const server = await serve(() => {
      // never respond
    });
    // Counted at the client: under load a 60 ms timeout can fire before this process has read the request
    // off the socket, so the server's count of hits may be short.
    const exchanges: Array<number | "timeout" | "network"> = [];
    const timingOut = client(server.url, { retries: 1, timeoutMs: 60 }, FAST, {
      observer: (_name, status) => exchanges.push(status),
    });
    const started = performance.now();
    await assert.rejects(timingOut.get({ path: "/slow" }), (error: unknown) => {
      assert.ok(error instanceof UpstreamError);
      assert.match(error.message, /timed out/);
      assert.equal(error.status, undefined);
      return true;
    });
    assert.deepEqual(exchanges, ["timeout", "timeout"]);
    assert.ok(server.hits.length <= 2);
    // Far below the 30 s default timeout, with room for a starved machine.
    assert.ok(performance.now() - started < 10_000);
  });

  test("a refused connection is retried and then reported", async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const deadUrl = server.url;
    await server.close();
    servers.length = 0;
    await assert.rejects(client(deadUrl, { retries: 1 }).get({ path: "/x" }), UpstreamError);
  });
});

describe("UpstreamClient: politeness", () => {
  async function overlapServer(delayMs: number) {
    const state = { inFlight: 0, maxInFlight: 0 };
    const server = await serve((_req, res) => {
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      setTimeout(() => {
        state.inFlight--;
        json(res, 200, {});
      }, delayMs);
    });
    return { server, state };
  }

  test("with maxConcurrent 1, parallel requests never overlap at the upstream", async () => {
    const { server, state } = await overlapServer(40);
    const c = client(server.url, { maxConcurrent: 1 });
    const responses = await Promise.all([
      c.get({ path: "/a" }),
      c.get({ path: "/b" }),
      c.get({ path: "/c" }),
    ]);
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 200],
    );
    assert.equal(server.hits.length, 3);
    assert.equal(state.maxInFlight, 1);
  });

  test("with maxConcurrent 2, two requests do run side by side", async () => {
    const { server, state } = await overlapServer(40);
    const c = client(server.url, { maxConcurrent: 2 });
    await Promise.all([c.get({ path: "/a" }), c.get({ path: "/b" }), c.get({ path: "/c" })]);
    assert.equal(state.maxInFlight, 2);
  });

  test("with maxConcurrent 1, a slowly streamed body still counts as in flight", async () => {
    const state = { inFlight: 0, maxInFlight: 0 };
    const server = await serve((_req, res) => {
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first part;");
      setTimeout(() => {
        state.inFlight--;
        res.end("second part");
      }, 60);
    });
    const c = client(server.url, { maxConcurrent: 1 });
    const [a, b] = await Promise.all([c.get({ path: "/a" }), c.get({ path: "/b" })]);
    assert.equal(a.body, "first part;second part");
    assert.equal(b.body, "first part;second part");
    assert.equal(state.maxInFlight, 1);
  });

  test("minIntervalMs spaces the starts of requests", async () => {
    // Timed where the client sends (timers never fire early), not where the server happens to read.
    const sentAt: number[] = [];
    const recordingFetch: typeof fetch = async () => {
      sentAt.push(performance.now());
      return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
    };
    const c = new UpstreamClient(
      { name: "testup", defaultBaseUrl: "http://unused.invalid", maxConcurrent: 4, minIntervalMs: 80 },
      { baseUrl: "http://127.0.0.1:9", userAgent: UA, backoffScale: FAST, fetchImpl: recordingFetch },
    );
    const asked = performance.now();
    await Promise.all([c.get({ path: "/1" }), c.get({ path: "/2" }), c.get({ path: "/3" })]);
    assert.equal(sentAt.length, 3);
    // Slots are 80 ms apart from the first, which is no earlier than the asking. Measured from the asking, not
    // from the first send: a busy machine may send the first late, and that does not push the next slots back.
    // So the k-th request (from 0) starts at least k × 80 ms after the asking (5 ms of clock slack).
    for (let i = 1; i < sentAt.length; i++) {
      const since = sentAt[i]! - asked;
      assert.ok(since >= i * 80 - 5, `request ${i + 1} was sent ${since.toFixed(0)} ms after the asking`);
    }
  });
});

describe("UpstreamClient: replay from recordings", () => {
  let dir: string;
  const noNetwork: typeof fetch = async () => {
    throw new Error("replay must not touch the network");
  };
  const replayClient = (index: RecordingIndex, name = "fxup") =>
    new UpstreamClient(
      { name, defaultBaseUrl: "http://unused.invalid" },
      { baseUrl: "https://api.fx.example/", userAgent: UA, replay: index, fetchImpl: noNetwork },
    );

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-recordings-"));
    fs.writeFileSync(
      path.join(dir, "x.recording.json"),
      JSON.stringify({
        sample: true,
        description: "EUR rates",
        source: { capture: "none", writtenFrom: "this test" },
        upstream: "fxup",
        request: { method: "GET", path: "/latest", query: { base: "EUR" } },
        response: {
          status: 200,
          headers: { "content-type": "application/json", etag: '"r1"' },
          bodyFile: "x.body.json",
        },
      }),
    );
    fs.writeFileSync(path.join(dir, "x.body.json"), '{"base":"EUR","rates":{"USD":1.08}}');
    fs.writeFileSync(
      path.join(dir, "y.recording.json"),
      JSON.stringify({
        sample: true,
        description: "inline not found",
        source: { capture: "none", writtenFrom: "this test" },
        upstream: "fxup",
        request: { method: "GET", path: "/gone" },
        response: { status: 410, body: "gone" },
      }),
    );
    fs.writeFileSync(path.join(dir, "notes.json"), "{ not a recording");
  });

  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("loadRecordings reads every *.recording.json with its body file", () => {
    const recordings = loadRecordings(dir);
    assert.deepEqual(
      recordings.map((r) => [path.basename(r.file), r.body]),
      [
        ["x.recording.json", '{"base":"EUR","rates":{"USD":1.08}}'],
        ["y.recording.json", "gone"],
      ],
    );
    assert.equal(new RecordingIndex(recordings).size, 2);
    assert.deepEqual(loadRecordings(path.join(dir, "does-not-exist")), []);
  });

  test("answers from the recording, marked as a recorded sample", async () => {
    const c = replayClient(new RecordingIndex(loadRecordings(dir)));
    const response = await c.get({ path: "/latest", query: { base: "EUR" } });
    assert.equal(response.recordedSample, true);
    assert.equal(response.notModified, false);
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { base: "EUR", rates: { USD: 1.08 } });
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.equal(response.headers.get("etag"), '"r1"');
    assert.equal(response.url, "https://api.fx.example/latest?base=EUR");

    const inline = await c.get({ path: "/gone" });
    assert.equal(inline.status, 410);
    assert.equal(inline.body, "gone");
    assert.equal(inline.recordedSample, true);
  });

  test("a request matches when the recorded query parameters are a subset of it", async () => {
    const c = replayClient(new RecordingIndex(loadRecordings(dir)));
    const response = await c.get({ path: "/latest", query: { base: "EUR", symbols: "USD", page: 1 } });
    assert.equal(response.status, 200);
    assert.equal(response.recordedSample, true);
  });

  test("a request no recording answers throws an UpstreamError naming UPSTREAMS=replay", async () => {
    const c = replayClient(new RecordingIndex(loadRecordings(dir)));
    const misses = [
      { path: "/latest", query: { base: "USD" } },
      { path: "/latest" },
      { path: "/other", query: { base: "EUR" } },
    ];
    for (const request of misses) {
      await assert.rejects(c.get(request), (error: unknown) => {
        assert.ok(error instanceof UpstreamError);
        assert.match(error.message, /UPSTREAMS=replay/);
        assert.match(error.message, new RegExp(request.path));
        assert.equal(error.status, 404);
        return true;
      });
    }
    // another upstream's client does not see fxup's recordings
    await assert.rejects(
      replayClient(new RecordingIndex(loadRecordings(dir)), "otherup").get({
        path: "/latest",
        query: { base: "EUR" },
      }),
      /otherup: .*UPSTREAMS=replay/,
    );
  });

  test('a recording without "sample": true is rejected when loading', () => {
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-recordings-bad-"));
    try {
      fs.writeFileSync(
        path.join(bad, "live.recording.json"),
        JSON.stringify({
          description: "captured live data",
          upstream: "fxup",
          request: { method: "GET", path: "/latest" },
          response: { status: 200, body: "{}" },
        }),
      );
      assert.throws(() => loadRecordings(bad), /live\.recording\.json: a recording must say "sample": true/);
      fs.writeFileSync(
        path.join(bad, "live.recording.json"),
        JSON.stringify({
          sample: "true",
          description: "string, not boolean",
          upstream: "fxup",
          request: { method: "GET", path: "/latest" },
          response: { status: 200, body: "{}" },
        }),
      );
      assert.throws(() => loadRecordings(bad), /"sample": true/);
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
  });
});

describe("UpstreamClient: POST with a JSON body", () => {
  async function recordingServer(
    answer: (n: number) => { status: number; headers?: Record<string, string> },
  ) {
    const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
    const server = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        seen.push({
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        });
        const { status, headers } = answer(seen.length);
        json(res, status, { n: seen.length }, headers);
      });
    });
    return { server, seen };
  }

  test("sends POST with the JSON body, content-type, User-Agent and query; a 4xx comes back as it is", async () => {
    const { server, seen } = await recordingServer((n) => ({ status: n === 1 ? 200 : 400 }));
    const c = client(server.url);
    const body = { q: "title:lithium", pagination: { offset: 0, limit: 2 } };
    const ok = await c.postJson({ path: "/search", query: { v: 1 }, headers: { "x-api-key": "k" } }, body);
    assert.equal(ok.status, 200);
    assert.equal(ok.url, `${server.url}/search?v=1`);
    const bad = await c.postJson({ path: "/search" }, { q: "(" });
    assert.equal(bad.status, 400, "a refusal is the caller's to judge, not retried");
    assert.equal(seen.length, 2);
    assert.equal(seen[0]!.method, "POST");
    assert.equal(seen[0]!.url, "/search?v=1");
    assert.deepEqual(JSON.parse(seen[0]!.body), body);
    assert.equal(seen[0]!.headers["content-type"], "application/json");
    assert.equal(seen[0]!.headers["user-agent"], UA);
    assert.equal(seen[0]!.headers["x-api-key"], "k");
  });

  test("a 429 is retried after Retry-After with the same body, and each exchange is observed", async () => {
    const { server, seen } = await recordingServer((n) =>
      n === 1 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 },
    );
    const observed: Array<number | string> = [];
    const c = new UpstreamClient(
      { name: "testup", defaultBaseUrl: "http://unused.invalid", minIntervalMs: 0, retries: 1 },
      {
        baseUrl: server.url,
        userAgent: UA,
        backoffScale: FAST,
        observer: (_u, status) => observed.push(status),
      },
    );
    const response = await c.postJson({ path: "/search" }, { q: "a" });
    assert.equal(response.status, 200);
    assert.deepEqual(
      seen.map((s) => [s.method, s.body]),
      [
        ["POST", '{"q":"a"}'],
        ["POST", '{"q":"a"}'],
      ],
    );
    assert.deepEqual(observed, [429, 200]);
  });

  test("replay: a POST recording answers a POST of its path whose body holds its fields, never a GET", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-post-recordings-"));
    try {
      fs.writeFileSync(
        path.join(dir, "search.recording.json"),
        JSON.stringify({
          sample: true,
          description: "a search",
          source: { capture: "none", writtenFrom: "this test" },
          upstream: "postup",
          request: { method: "POST", path: "/search", query: { q: "title:lithium" } },
          response: { status: 200, body: '{"count":1}' },
        }),
      );
      const c = new UpstreamClient(
        { name: "postup", defaultBaseUrl: "http://unused.invalid" },
        {
          baseUrl: "https://api.example/",
          userAgent: UA,
          replay: new RecordingIndex(loadRecordings(dir)),
          fetchImpl: async () => {
            throw new Error("replay must not touch the network");
          },
        },
      );
      const hit = await c.postJson({ path: "/search" }, { q: "title:lithium", pagination: { limit: 5 } });
      assert.equal(hit.status, 200);
      assert.equal(hit.body, '{"count":1}');
      assert.equal(hit.recordedSample, true);
      await assert.rejects(
        c.postJson({ path: "/search" }, { q: "title:other" }),
        /no recording answers POST/,
      );
      await assert.rejects(
        c.get({ path: "/search", query: { q: "title:lithium" } }),
        /no recording answers GET/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
