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
