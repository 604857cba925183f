// Bench child: a loopback facilitator that accepts every payment (verify: valid; settle: a fresh transaction
// hash). It stands in for a real facilitator so that the bench measures the seller's CPU, not the chain's;
// it counts the TCP connections it was opened, so the bench shows whether the seller keeps them alive.
// BENCH_FACILITATOR_VERIFY_MS and BENCH_FACILITATOR_SETTLE_MS delay each verify and settle answer (default 0),
// so that a bench can see the seller with a facilitator at production latency (a settle waits for the chain).
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { announce, exitWith } from "./common.ts";

const NETWORK = process.env.BENCH_NETWORK ?? "eip155:8453";
const VERIFY_MS = delaySetting("BENCH_FACILITATOR_VERIFY_MS");
const SETTLE_MS = delaySetting("BENCH_FACILITATOR_SETTLE_MS");
let connections = 0;
const calls = { verify: 0, settle: 0, supported: 0 };
/** Verify and settle requests received and not answered yet. */
let inFlight = 0;

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

function delaySetting(name: string): number {
  const value = Number(process.env[name] ?? 0);
  if (!Number.isInteger(value) || value < 0 || value > 600_000)
    throw new Error(`${name} must be a whole number of milliseconds from 0 to 600000`);
  return value;
}

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Runs `reply` after `delayMs`, counting the request in flight until then. */
function later(delayMs: number, reply: () => void): void {
  if (delayMs === 0) {
    reply();
    return;
  }
  inFlight++;
  setTimeout(() => {
    inFlight--;
    reply();
  }, delayMs);
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
    if (req.method === "GET" && path.endsWith("/stats"))
      return answer(res, 200, { connections, calls, inFlight });
    const payer = payerOf(Buffer.concat(chunks).toString("utf8"));
    if (req.method === "POST" && path.endsWith("/verify")) {
      calls.verify++;
      return later(VERIFY_MS, () => answer(res, 200, { isValid: true, payer }));
    }
    if (req.method === "POST" && path.endsWith("/settle")) {
      calls.settle++;
      return later(SETTLE_MS, () =>
        answer(res, 200, {
          success: true,
          transaction: `0x${randomBytes(32).toString("hex")}`,
          network: NETWORK,
          payer,
        }),
      );
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
