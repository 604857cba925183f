// Used by this family's tests only: a handler context over an in-memory store, and a warmer run recorded the
// way the runtime records it (start → run → finish), so status endpoints can read it back.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import { loadConfig } from "../../config.ts";
import { createLogger } from "../../log.ts";
import { openStore } from "../../store/store.ts";
import { loadRecordings, RecordingIndex } from "../../upstream/recordings.ts";
import { UpstreamRegistry } from "../../upstream/registry.ts";
import { ECB_RECORDINGS_DIR } from "./index.ts";

export async function openTestContext(env: Record<string, string> = {}): Promise<HandlerContext> {
  const config = loadConfig({ UPSTREAMS: "replay", LOG_LEVEL: "silent", ...env });
  const store = await openStore({ kind: "sqlite", file: ":memory:" });
  const upstreams = new UpstreamRegistry(config, new RecordingIndex(loadRecordings(ECB_RECORDINGS_DIR)));
  return { config, store, upstreams, log: createLogger("silent") };
}

export async function runWarmerRecorded(
  warmer: Warmer,
  ctx: HandlerContext,
): Promise<Record<string, unknown>> {
  const id = await ctx.store.warmerRuns.start(warmer.name);
  try {
    const counts = await warmer.run(ctx);
    await ctx.store.warmerRuns.finish(id, { ok: true, counts });
    return counts;
  } catch (error) {
    await ctx.store.warmerRuns.finish(id, {
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
}

export interface LoopbackUpstream {
  baseUrl: string;
  requests: URL[];
  close: () => Promise<void>;
}

/** A loopback HTTP server standing in for the ECB; `answer` decides each response. */
export async function startLoopbackUpstream(
  answer: (url: URL) => { status: number; headers?: Record<string, string>; body: string },
): Promise<LoopbackUpstream> {
  const requests: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(url);
    const { status, headers, body } = answer(url);
    res.writeHead(status, headers);
    res.end(body);
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
