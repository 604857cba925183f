// The preflight's indexer view: every paid route probed bare at PUBLIC_URL, and the routes an indexer could not
// list named with why.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { startTestService, type TestService } from "../../test/harness.ts";
import { probeAsIndexer } from "./indexer-probe.ts";

let service: TestService;
let seller: http.Server;
let sellerUrl: string;

before(async () => {
  service = await startTestService({ NETWORKS: "base,base-sepolia" });
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
});
after(async () => {
  await service.stop();
  await new Promise<void>((resolve) => seller.close(() => resolve()));
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
