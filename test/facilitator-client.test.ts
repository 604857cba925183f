// The pooled facilitator client: what reaches the facilitator, and what the paywall gets back, as the SDK's client.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { FacilitatorTimeoutError, HTTPFacilitatorClient } from "@x402/core/server";
import { type PaymentPayload, type PaymentRequirements, SettleError } from "@x402/core/types";
import { PooledFacilitatorClient } from "../src/x402/seller/facilitator-client.ts";
import { FacilitatorNotReachedError } from "../src/x402/seller/facilitators/not-reached.ts";

const requirements = {
  scheme: "exact",
  network: "eip155:8453",
  amount: "5000",
  asset: "0xabc",
  payTo: "0xdef",
  maxTimeoutSeconds: 300,
  extra: { big: 10n },
} as unknown as PaymentRequirements;
const payload = {
  x402Version: 2,
  accepted: requirements,
  payload: { signature: "0x1" },
} as unknown as PaymentPayload;

let server: http.Server;
let base: string;
let connections = 0;
const bodies: string[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      bodies.push(body);
      if (req.url?.startsWith("/silent/")) return; // never answers
      const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(json));
      };
      if (req.url === "/moved/settle") return send(307, {}, { location: `${base}/ok/settle` });
      if (req.url?.startsWith("/refuse/"))
        return send(402, {
          success: false,
          errorReason: "insufficient_funds",
          transaction: "",
          network: "eip155:8453",
        });
      if (req.url?.endsWith("/verify"))
        return send(200, { isValid: true, payer: "0x1", invalidReason: null });
      return send(
        200,
        { success: true, transaction: "0xfeed", network: "eip155:8453", payer: null },
        {
          "extension-responses": Buffer.from(JSON.stringify({ "offer-receipt": { status: "ok" } })).toString(
            "base64",
          ),
        },
      );
    });
  });
  server.on("connection", () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);

describe("PooledFacilitatorClient", () => {
  it("sends what the SDK's client sends, and answers what it answers", async () => {
    const pooled = new PooledFacilitatorClient({ url: `${base}/ok` });
    const sdk = new HTTPFacilitatorClient({ url: `${base}/ok` });
    bodies.length = 0;
    const ours = [await pooled.verify(payload, requirements), await pooled.settle(payload, requirements)];
    const theirs = [await sdk.verify(payload, requirements), await sdk.settle(payload, requirements)];
    assert.deepEqual(ours, theirs);
    assert.deepEqual(JSON.parse(bodies[0] as string), JSON.parse(bodies[2] as string));
    assert.equal(JSON.parse(bodies[0] as string).paymentRequirements.extra.big, "10");
    await pooled.close();
  });

  it("keeps its connections alive across many calls", async () => {
    const pooled = new PooledFacilitatorClient({ url: `${base}/ok` });
    const before = connections;
    for (let i = 0; i < 200; i++) await pooled.verify(payload, requirements);
    // undici may open a second socket while the first is finishing a response; never one per call.
    assert.ok(connections - before <= 2, `${connections - before} connections for 200 calls`);
    await pooled.close();
  });

  it("throws the SDK's SettleError for a refusal, and follows a redirect", async () => {
    const refused = new PooledFacilitatorClient({ url: `${base}/refuse` });
    await assert.rejects(refused.settle(payload, requirements), (error: unknown) => {
      assert.ok(error instanceof SettleError);
      assert.equal(error.statusCode, 402);
      assert.equal(error.errorReason, "insufficient_funds");
      return true;
    });
    const moved = new PooledFacilitatorClient({ url: `${base}/moved` });
    assert.equal((await moved.settle(payload, requirements)).transaction, "0xfeed");
    await Promise.all([refused.close(), moved.close()]);
  });

  it("gives up on a facilitator silent past its timeout, and names one it could not reach", async () => {
    const silent = new PooledFacilitatorClient({ url: `${base}/silent`, timeoutMs: 150 });
    const started = performance.now();
    await assert.rejects(silent.settle(payload, requirements), FacilitatorTimeoutError);
    assert.ok(performance.now() - started < 2000);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = new PooledFacilitatorClient({ url: `http://127.0.0.1:${port}` });
    await assert.rejects(unreachable.verify(payload, requirements), FacilitatorNotReachedError);
    await Promise.all([silent.close(), unreachable.close()]);
  });
});
