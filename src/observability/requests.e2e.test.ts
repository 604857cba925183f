// One JSON log line per request with the route template, never the URL or a payment header; an x-request-id
// on every answer, the client's own when it is a plain token.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { pino } from "pino";
import { newBuyer, signedPaymentHeader } from "../../test/harness.ts";
import { testFamily } from "../../test/test-family.ts";
import { type TestDatabase, testDatabase } from "../../test/test-store.ts";
import { loadConfig } from "../config.ts";
import { type Service, startService } from "../service.ts";
import { creditWallet } from "../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../x402/shared/networks.ts";

const ITEM = "/v1/test/item?mode=ok";
const lines: Array<Record<string, unknown>> = [];
const raw: string[] = [];

let database: TestDatabase;
let dataDir: string;
let service: Service;

before(async () => {
  database = testDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-request-log-"));
  const config = loadConfig({
    ...database.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    UPSTREAMS: "replay",
    RUN_WARMERS: "false",
  });
  const log = pino(
    { level: "info", base: { service: "paycall" } },
    {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  service = await startService(config, { log, families: [testFamily] });
  await service.paymentsReady;
});
after(async () => {
  await service.close();
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function requestLine(id: string): Record<string, unknown> {
  const line = lines.find((l) => l.msg === "request" && l.reqId === id);
  assert.ok(line, `a log line for request ${id}`);
  return line;
}

test("x-request-id: the client's plain token is kept, anything else replaced, none generated", async () => {
  const kept = await fetch(`${service.url}${ITEM}`, { headers: { "x-request-id": "client-id_1.a" } });
  assert.equal(kept.headers.get("x-request-id"), "client-id_1.a");
  const replaced = await fetch(`${service.url}${ITEM}`, { headers: { "x-request-id": "bad id\t<script>" } });
  const generated = await fetch(`${service.url}/health`);
  const long = await fetch(`${service.url}/health`, { headers: { "x-request-id": "a".repeat(65) } });
  // Preflights answer with one shared set of headers: each still gets its own id.
  const preflights = [
    await fetch(`${service.url}${ITEM}`, { method: "OPTIONS" }),
    await fetch(`${service.url}${ITEM}`, { method: "OPTIONS" }),
  ];
  const ids = [replaced, generated, long, ...preflights].map((r) => r.headers.get("x-request-id") ?? "");
  for (const id of ids) assert.match(id, /^[0-9a-f]{10}-[0-9a-z]+$/);
  assert.equal(new Set(ids).size, 5);
  const notFound = await fetch(`${service.url}/no/such/route`);
  assert.equal(notFound.status, 404);
  assert.equal(requestLine(notFound.headers.get("x-request-id") as string).route, "unmatched");
});

test("each request is one line with its route template, status, price and whether it was charged", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const secret = "hunter2-in-the-query";
  const bad = await fetch(`${service.url}/v1/test/item?mode=ok&apikey=${secret}`);
  assert.equal(bad.status, 400);
  const header = await signedPaymentHeader(buyer, `${service.url}${ITEM}`);
  const paid = await fetch(`${service.url}${ITEM}`, {
    headers: { "payment-signature": header, "x-request-id": "paid-call-1" },
  });
  assert.equal(paid.status, 200);
  const challenge = await fetch(`${service.url}${ITEM}`, { headers: { "x-request-id": "unpaid-call-1" } });
  assert.equal(challenge.status, 402);

  const paidLine = requestLine("paid-call-1");
  assert.deepEqual(
    { ...paidLine, ms: typeof paidLine.ms, time: typeof paidLine.time },
    {
      level: 30,
      time: "number",
      service: "paycall",
      msg: "request",
      reqId: "paid-call-1",
      route: "/v1/test/item",
      method: "GET",
      status: 200,
      ms: "number",
      sku: "test.item",
      price: "0.01",
      charged: true,
      payer: buyer.address,
    },
  );
  const unpaid = requestLine("unpaid-call-1");
  assert.deepEqual(
    [unpaid.status, unpaid.charged, unpaid.payer, unpaid.price],
    [402, false, undefined, "0.01"],
  );
  const badLine = requestLine(bad.headers.get("x-request-id") as string);
  assert.deepEqual([badLine.status, badLine.route, badLine.charged], [400, "/v1/test/item", false]);

  const all = raw.join("");
  assert.ok(!all.includes(secret), "no query string is logged");
  assert.ok(!all.includes(header.slice(0, 32)), "no payment header is logged");
  assert.ok(!/payment-signature/i.test(all));
});
