// Bench child: a bare node:http server answering every request with the recorded 402 (same status, headers, body).
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { announce, exitWith } from "./common.ts";

export interface RecordedResponse {
  status: number;
  /** Every header paycall sent except date/connection/keep-alive (node:http adds those), in the order received. */
  headers: Record<string, string>;
  bodyBase64: string;
}

const file = process.argv[2];
if (!file) throw new Error("usage: bare.ts <recorded-response.json>");
const recorded = JSON.parse(fs.readFileSync(file, "utf8")) as RecordedResponse;
const body = Buffer.from(recorded.bodyBase64, "base64");
// One writeHead with a prepared object: the cheapest way node:http sends these bytes.
const headers = { ...recorded.headers, "content-length": String(body.length) };

const server = http.createServer((_req, res) => {
  res.writeHead(recorded.status, headers);
  res.end(body);
});
server.listen(Number(process.env.BENCH_BARE_PORT ?? 0), "127.0.0.1", () => {
  announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
exitWith(() => new Promise<void>((resolve) => server.close(() => resolve())));
