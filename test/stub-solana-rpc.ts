// A stand-in Solana JSON-RPC node on loopback, answering the calls a settlement check makes
// (getSignatureStatuses, getSignaturesForAddress, getTransaction, isBlockhashValid) from transactions the
// test lands. `down` makes it refuse every call.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface LandedTransaction {
  /** The transaction id: its first (fee payer's) signature. */
  id: string;
  signatures: string[];
  /** Accounts that signed or were touched (what getSignaturesForAddress indexes). */
  accounts: string[];
  blockTime: number;
}

export interface StubSolanaRpc {
  url: string;
  down: boolean;
  calls: Record<string, number>;
  land: (transaction: Omit<LandedTransaction, "blockTime">) => void;
  expire: (blockhash: string) => void;
  close: () => Promise<void>;
}

export async function startStubSolanaRpc(): Promise<StubSolanaRpc> {
  const landed: LandedTransaction[] = [];
  const expired = new Set<string>();
  const rpc: StubSolanaRpc = {
    url: "",
    down: false,
    calls: {},
    land: (transaction) => landed.unshift({ ...transaction, blockTime: Math.floor(Date.now() / 1000) }),
    expire: (blockhash) => expired.add(blockhash),
    close: async () => {},
  };

  function answer(method: string, params: any[]): unknown {
    rpc.calls[method] = (rpc.calls[method] ?? 0) + 1;
    const context = { slot: 300_000_000 };
    switch (method) {
      case "getSignatureStatuses":
        return {
          context,
          value: (params[0] as string[]).map((id) =>
            landed.some((t) => t.id === id)
              ? { slot: context.slot, confirmations: null, err: null, confirmationStatus: "finalized" }
              : null,
          ),
        };
      case "getSignaturesForAddress":
        return landed
          .filter((t) => t.accounts.includes(params[0]))
          .slice(0, params[1]?.limit ?? 1000)
          .map((t) => ({
            signature: t.id,
            slot: context.slot,
            err: null,
            memo: null,
            blockTime: t.blockTime,
            confirmationStatus: "finalized",
          }));
      case "getTransaction": {
        const t = landed.find((l) => l.id === params[0]);
        return t
          ? {
              slot: context.slot,
              blockTime: t.blockTime,
              meta: { err: null, fee: 5000 },
              transaction: { signatures: t.signatures, message: { accountKeys: t.accounts } },
            }
          : null;
      }
      case "isBlockhashValid":
        return { context, value: !expired.has(params[0]) };
      default:
        throw new Error(`method ${method} not supported`);
    }
  }

  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (rpc.down) {
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("service unavailable");
        return;
      }
      const request = JSON.parse(body) as { id: number; method: string; params: any[] };
      let reply: unknown;
      try {
        reply = { jsonrpc: "2.0", id: request.id, result: answer(request.method, request.params ?? []) };
      } catch (error) {
        reply = { jsonrpc: "2.0", id: request.id, error: { code: -32601, message: String(error) } };
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  rpc.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rpc.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return rpc;
}
