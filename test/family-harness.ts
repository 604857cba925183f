// For a family's own tests: a handler context over an in-memory store with the family's tables and
// recordings, a warmer run recorded the way the worker records it, and a loopback upstream.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { familyContext, type ServiceContext } from "../src/catalog/family-context.ts";
import type { Family, FamilyFactory, HandlerContext, Warmer } from "../src/catalog/product.ts";
import { loadConfig } from "../src/config.ts";
import { errorText } from "../src/json.ts";
import { createLogger } from "../src/log.ts";
import { loadRecordings, RecordingIndex } from "../src/upstream/recordings.ts";
import { UpstreamRegistry } from "../src/upstream/registry.ts";
import { openTestStore } from "./test-store.ts";

export interface FamilyTestContext extends HandlerContext {
  family: Family;
  /** The service's whole context around the family's, for what a test does as the worker or checks beyond it. */
  service: ServiceContext;
  close: () => Promise<void>;
}

/** UPSTREAMS=replay over the family's recordings unless `env` says otherwise. */
export async function openFamilyContext(
  factory: FamilyFactory,
  env: Record<string, string> = {},
  fetchImpl?: typeof fetch,
): Promise<FamilyTestContext> {
  const config = loadConfig({ UPSTREAMS: "replay", LOG_LEVEL: "silent", ...env });
  const family = factory(config);
  const store = await openTestStore(family.migrations ?? {});
  const recordings = new RecordingIndex(family.recordingsDir ? loadRecordings(family.recordingsDir) : []);
  const upstreams = new UpstreamRegistry(config, recordings, fetchImpl, store.upstreamBudgets);
  const service: ServiceContext = { config, store, upstreams, log: createLogger("silent") };
  return { ...familyContext(service), service, family, close: () => store.close() };
}

export async function runWarmerRecorded(
  warmer: Warmer,
  ctx: HandlerContext & { service: ServiceContext },
): Promise<Record<string, unknown>> {
  const runs = ctx.service.store.warmerRuns;
  const id = await runs.start(warmer.name);
  try {
    const counts = await warmer.run(ctx);
    await runs.finish(id, { ok: true, counts });
    return counts;
  } catch (error) {
    await runs.finish(id, {
      ok: false,
      error: errorText(error),
    });
    throw error;
  }
}

export interface LoopbackUpstream {
  baseUrl: string;
  requests: URL[];
  close: () => Promise<void>;
}

/** A loopback HTTP server standing in for an upstream; `answer` decides each response. */
export async function startLoopbackUpstream(
  answer: (
    url: URL,
    request: http.IncomingMessage,
    body: string,
  ) =>
    | { status: number; headers?: Record<string, string>; body: string }
    | Promise<{ status: number; headers?: Record<string, string>; body: string }>,
): Promise<LoopbackUpstream> {
  const requests: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(url);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      try {
        const { status, headers, body } = await answer(url, req, Buffer.concat(chunks).toString("utf8"));
        res.writeHead(status, headers);
        res.end(body);
      } catch (error) {
        res.writeHead(500);
        res.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
