// Bench child: a loopback facilitator that accepts every payment (verify: valid; settle: a fresh transaction
// hash). It stands in for a real facilitator so that the bench measures the seller's CPU, not the chain's;
// it counts the TCP connections it was opened, so the bench shows whether the seller keeps them alive.
// BENCH_FACILITATOR_VERIFY_MS and BENCH_FACILITATOR_SETTLE_MS delay each verify and settle answer (default 0),
// so that a bench can see the seller with a facilitator at production latency (a settle waits for the chain).
// It settles Solana mainnet too (its fee payer in /supported), and answers POST /solana-rpc with the few Solana
// JSON-RPC reads an @x402/svm buyer and the seller make (the USDC mint, a blockhash, the block height).
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { getBase58Decoder } from "@solana/kit";
import { announce, exitWith } from "./common.ts";

const NETWORK = process.env.BENCH_NETWORK ?? "eip155:8453";
const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const SOLANA_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const base58 = getBase58Decoder();
/** Any valid address: the stand-in never signs. */
const FEE_PAYER = base58.decode(new Uint8Array(32).fill(7));
const VERIFY_MS = delaySetting("BENCH_FACILITATOR_VERIFY_MS");
const SETTLE_MS = delaySetting("BENCH_FACILITATOR_SETTLE_MS");
let connections = 0;
const calls = { verify: 0, settle: 0, supported: 0 };
/** Verify and settle requests received and not answered yet. */
let inFlight = 0;

function parsed(body: string): { payer?: string; network: string } {
  try {
    const request = JSON.parse(body) as {
      paymentPayload?: { payload?: { authorization?: { from?: string } } };
      paymentRequirements?: { network?: string };
    };
    return {
      payer: request.paymentPayload?.payload?.authorization?.from,
      network: request.paymentRequirements?.network ?? NETWORK,
    };
  } catch {
    return { network: NETWORK };
  }
}

/** SPL Token's 82-byte mint: 6 decimals, initialized. */
const MINT_DATA = (() => {
  const data = Buffer.alloc(82);
  data[44] = 6;
  data[45] = 1;
  return data.toString("base64");
})();

function solanaRpc(method: string, params: unknown[]): unknown {
  const height = Math.floor(Date.now() / 400);
  const context = { slot: height };
  switch (method) {
    case "getAccountInfo":
      return {
        context,
        value:
          params[0] === SOLANA_USDC
            ? {
                data: [MINT_DATA, "base64"],
                executable: false,
                lamports: 1,
                owner: TOKEN_PROGRAM,
                rentEpoch: 0,
                space: 82,
              }
            : null,
      };
    case "getLatestBlockhash":
      return {
        context,
        value: { blockhash: base58.decode(randomBytes(32)), lastValidBlockHeight: height + 150 },
      };
    case "getBlockHeight":
      return height;
    case "isBlockhashValid":
      return { context, value: true };
    default:
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
        kinds: [
          { x402Version: 2, scheme: "exact", network: NETWORK },
          { x402Version: 2, scheme: "exact", network: SOLANA, extra: { feePayer: FEE_PAYER } },
        ],
        extensions: [],
        signers: {},
      });
    }
    if (req.method === "GET" && path.endsWith("/stats"))
      return answer(res, 200, { connections, calls, inFlight });
    const body = Buffer.concat(chunks).toString("utf8");
    if (req.method === "POST" && path.endsWith("/solana-rpc")) {
      const { id, method, params } = JSON.parse(body) as { id: number; method: string; params?: unknown[] };
      const result = solanaRpc(method, params ?? []);
      return answer(
        res,
        200,
        result === undefined
          ? { jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } }
          : { jsonrpc: "2.0", id, result },
      );
    }
    const { payer, network } = parsed(body);
    if (req.method === "POST" && path.endsWith("/verify")) {
      calls.verify++;
      return later(VERIFY_MS, () => answer(res, 200, { isValid: true, payer }));
    }
    if (req.method === "POST" && path.endsWith("/settle")) {
      calls.settle++;
      return later(SETTLE_MS, () =>
        answer(res, 200, {
          success: true,
          transaction:
            network === SOLANA ? base58.decode(randomBytes(64)) : `0x${randomBytes(32).toString("hex")}`,
          network,
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
