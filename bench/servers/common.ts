// Shared by the bench's server children: announce readiness on stdout, shut down when told or orphaned.

/** Prints the one line the parent waits for: `{"ready":true,"url":...,"pid":...}`. */
export function announce(url: string, extra: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ ready: true, url, pid: process.pid, ...extra })}\n`);
}

/**
 * Runs `close` once, then exits 0 (so `--cpu-prof` can write its profile), on SIGTERM/SIGINT or when the
 * parent goes away (its end of our stdin closes). A close that hangs is cut short after 3 s.
 */
export function exitWith(close: () => Promise<void> | void): void {
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    setTimeout(() => process.exit(0), 3000).unref();
    Promise.resolve()
      .then(close)
      .catch(() => {})
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.stdin.on("end", stop);
  process.stdin.on("error", stop);
  process.stdin.resume();
}

/**
 * A loopback HTTP endpoint on an ephemeral port reporting this process's event-loop delay since the last call
 * (`perf_hooks.monitorEventLoopDelay`, sampled every 10 ms, as prom-client's default metrics do): GET answers
 * `{"p99Ms":…,"maxMs":…}` and starts a new window. Resolves with its URL, to pass in `announce`.
 */
export async function eventLoopProbe(): Promise<string> {
  const { monitorEventLoopDelay } = await import("node:perf_hooks");
  const http = await import("node:http");
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const server = http.createServer((_req, res) => {
    const body = JSON.stringify({ p99Ms: histogram.percentile(99) / 1e6, maxMs: histogram.max / 1e6 });
    histogram.reset();
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  server.unref();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as import("node:net").AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}
