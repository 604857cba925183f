// Bench child: a loopback facilitator that accepts every payment (verify: valid; settle: a fresh transaction
// hash). It stands in for a real facilitator so that the bench measures the seller's CPU, not the chain's;
// it counts the TCP connections it was opened, so the bench shows whether the seller keeps them alive.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { announce, exitWith } from "./common.ts";

const NETWORK = process.env.BENCH_NETWORK ?? "eip155:8453";
let connections = 0;
const calls = { verify: 0, settle: 0, supported: 0 };

function payerOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as {
      paymentPayload?: { payload?: { authorization?: { from?: string } } };
    };
    return parsed.paymentPayload?.payload?.authorization?.from;
  } catch {
    return undefined;
  }
}

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const path = req.url?.split("?")[0] ?? "";
    if (req.method === "GET" && path.endsWith("/supported")) {
      calls.supported++;
      return answer(res, 200, {
        kinds: [{ x402Version: 2, scheme: "exact", network: NETWORK }],
        extensions: [],
        signers: {},
      });
    }
    if (req.method === "GET" && path.endsWith("/stats")) return answer(res, 200, { connections, calls });
    const payer = payerOf(Buffer.concat(chunks).toString("utf8"));
    if (req.method === "POST" && path.endsWith("/verify")) {
      calls.verify++;
      return answer(res, 200, { isValid: true, payer });
    }
    if (req.method === "POST" && path.endsWith("/settle")) {
      calls.settle++;
      return answer(res, 200, {
        success: true,
        transaction: `0x${randomBytes(32).toString("hex")}`,
        network: NETWORK,
        payer,
      });
    }
    answer(res, 404, { error: "not_found" });
  });
});
server.on("connection", () => {
  connections++;
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
exitWith(() => new Promise<void>((resolve) => server.close(() => resolve())));
