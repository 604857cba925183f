// Used by this family's tests only: the family harness, a loopback WebSocket server standing in for Binance's
// combined trade stream (the `ws` package, a devDependency), trade frames, and a bounded wait.
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type WebSocket as ServerSocket, WebSocketServer } from "ws";
import { type FamilyTestContext, openFamilyContext } from "../../../test/family-harness.ts";
import { marketFamily } from "./index.ts";
import type { MarketSymbol } from "./symbols.ts";

export function openTestContext(env: Record<string, string> = {}): Promise<FamilyTestContext> {
  return openFamilyContext(marketFamily, env);
}

export function productOf(ctx: FamilyTestContext, sku: string) {
  const found = ctx.family.products.find((p) => p.sku === sku);
  if (!found) throw new Error(`no product ${sku}`);
  return found;
}

export interface StreamServer {
  url: string;
  /** Every connection accepted, in order, with the path and query it asked for. */
  connections: Array<{ socket: ServerSocket; url: string; closed: boolean }>;
  open(): ServerSocket[];
  send(frame: string | object): void;
  close(): Promise<void>;
}

export async function startStreamServer(): Promise<StreamServer> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const connections: StreamServer["connections"] = [];
  wss.on("connection", (socket, request) => {
    const entry = { socket, url: request.url ?? "", closed: false };
    connections.push(entry);
    socket.on("close", () => {
      entry.closed = true;
    });
  });
  const open = () => connections.filter((c) => !c.closed).map((c) => c.socket);
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    connections,
    open,
    send(frame) {
      const text = typeof frame === "string" ? frame : JSON.stringify(frame);
      for (const socket of open()) socket.send(text);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.socket.terminate();
        wss.close(() => resolve());
      }),
  };
}

let tradeId = 1000;

/** A combined-stream trade frame as Binance documents it. */
export function tradeFrame(symbol: MarketSymbol, price: string, qty = "0.50000000", time = Date.now()) {
  return {
    stream: `${symbol.toLowerCase()}@trade`,
    data: { e: "trade", E: time + 1, s: symbol, t: ++tradeId, p: price, q: qty, T: time, m: true, M: true },
  };
}

/** Waits until `condition` holds; fails after `timeoutMs` (a bound against hanging, not a timing assertion). */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
