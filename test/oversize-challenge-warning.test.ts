// A paid route whose 402 cannot fit the 4 KB response head a default nginx holds is named in a warning at start
// (and only such a route: a service whose 402s fit says nothing).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { test } from "node:test";
import { z } from "zod";
import { type Family, ok, product } from "../src/catalog/product.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { readResponseHead } from "../src/preflight/response-head.ts";
import { startService } from "../src/service.ts";
import { RESPONSE_HEAD_LIMIT } from "../src/x402/seller/challenge.ts";
import { testFamily } from "./test-family.ts";

/** A product whose summary alone (the 402's resource description) is 3 KB: its head cannot fit. */
const verboseFamily: Family = {
  name: "verbose",
  products: [
    product({
      sku: "verbose.item",
      method: "GET",
      path: "/v1/verbose/item",
      summary: `A product described at length: ${"a very long description ".repeat(130)}`,
      description: "Answers ok.",
      status: "live",
      price: "0.01",
      query: z.object({ id: z.string() }),
      answer: z.object({ id: z.string() }),
      async handle({ query }) {
        return ok({ id: query.id });
      },
    }),
  ],
};

async function startupWarnings(families: Family[]) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-test-"));
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, UPSTREAMS: "replay" });
  const service = await startService(config, { log: createLogger("warn", sink), families });
  await service.paymentsReady;
  // The check runs once payments are ready; give it the moment it takes.
  for (let i = 0; i < 50 && !lines.some((l) => /response head/.test(String(l.msg))); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    service,
    warnings: lines.filter((l) => /response head/.test(String(l.msg))),
    async stop() {
      await service.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

test("a route whose 402 head passes 4 KB is named at start, with its size and the proxy setting", async () => {
  const started = await startupWarnings([testFamily, verboseFamily]);
  try {
    assert.equal(started.warnings.length, 1);
    const [warning] = started.warnings;
    assert.match(String(warning?.msg), /1 paid route\(s\).*over 4096 bytes.*proxy_buffer_size/);
    assert.deepEqual(
      ((warning?.routes ?? []) as string[]).map((r) => r.replace(/\(\d+ B\)/, "(n B)")),
      ["GET /v1/verbose/item (n B)"],
    );
    // What the warning says is what a buyer gets: the route's head, read off the socket, is over the limit.
    const head = await readResponseHead(`${started.service.url}/v1/verbose/item?id=1`);
    assert.equal(head.status, 402);
    assert.ok(head.bytes > RESPONSE_HEAD_LIMIT, `${head.bytes} B`);
  } finally {
    await started.stop();
  }
});

test("a service whose 402s all fit logs no such warning", async () => {
  const started = await startupWarnings([testFamily]);
  try {
    assert.deepEqual(started.warnings, []);
  } finally {
    await started.stop();
  }
});
