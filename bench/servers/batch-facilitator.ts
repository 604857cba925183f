// Bench child: the real local facilitator (exact and batch-settlement, the SDK's schemes over a pretend chain in
// its own SQLite store) served over HTTP with a production-like delay before each answer:
// BENCH_FACILITATOR_VERIFY_MS before /verify, BENCH_FACILITATOR_SETTLE_MS before /settle. BENCH_CREDIT names
// the buyers (comma-separated addresses) credited with 100 pretend USD. GET /stats counts the settlements by
// kind (exact transfers; batch-settlement deposits, claims, settles, refunds): the on-chain transactions.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { openStore } from "../../src/store/store.ts";
import { createLocalFacilitator, creditWallet } from "../../src/x402/facilitator/facilitator.ts";
import { localFacilitatorRoutes } from "../../src/x402/facilitator/routes.ts";
import { NETWORKS } from "../../src/x402/shared/networks.ts";
import { announce, exitWith } from "./common.ts";

const VERIFY_MS = Number(process.env.BENCH_FACILITATOR_VERIFY_MS ?? 0);
const SETTLE_MS = Number(process.env.BENCH_FACILITATOR_SETTLE_MS ?? 0);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-bench-facilitator-"));
const store = await openStore({ kind: "sqlite", file: path.join(dir, "chain.sqlite") });
for (const address of (process.env.BENCH_CREDIT ?? "").split(",").filter(Boolean))
  await creditWallet(store, NETWORKS.base, address, "100");

const settled: Record<string, number> = {};
const app = new Hono();
app.use("*", async (c, next) => {
  if (c.req.method === "POST" && (c.req.path === "/verify" || c.req.path === "/settle")) {
    const body = (await c.req.json().catch(() => ({}))) as {
      paymentPayload?: { payload?: { type?: string } };
      paymentRequirements?: { scheme?: string };
    };
    if (c.req.path === "/settle") {
      const kind = `${body.paymentRequirements?.scheme}${body.paymentPayload?.payload?.type ? `:${body.paymentPayload.payload.type}` : ""}`;
      settled[kind] = (settled[kind] ?? 0) + 1;
    }
    await sleep(c.req.path === "/verify" ? VERIFY_MS : SETTLE_MS);
  }
  await next();
});
app.get("/stats", (c) => c.json({ settled }));
app.route("/", localFacilitatorRoutes(createLocalFacilitator(store, [NETWORKS.base])));

const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
  announce(`http://127.0.0.1:${info.port}`),
);
exitWith(async () => {
  server.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
