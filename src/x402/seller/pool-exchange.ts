// One request over an undici Pool with its answer read whole, for the facilitator client's verify and settle.
// `Pool.request` makes, per request, an AsyncResource, a Readable stream for the body, an AbortSignal with its
// listeners and a parsed copy of every header; a paid call sends two such requests and needs only the status,
// one header and the body's text. Here the pool's own handler interface collects the body's chunks, and a
// timer stands in for the signal.
import type { Dispatcher, Pool } from "undici";

/** The answer: its status, the one header asked for (undefined when absent or repeated), and its body. */
export interface Exchanged {
  status: number;
  header: string | undefined;
  text: string;
}

/** The request's deadline passed: the caller decides what to call it. */
export class ExchangeTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "TimeoutError";
  }
}

/** The value of `name` (lower case) in undici's raw headers; undefined when absent or given more than once. */
function headerOf(raw: Buffer[], name: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i] as Buffer;
    if (key.length !== name.length || key.toString("latin1").toLowerCase() !== name) continue;
    if (found !== undefined) return undefined;
    found = (raw[i + 1] as Buffer).toString("latin1");
  }
  return found;
}

/** `request` sent on `pool`, answered within `timeoutMs` or rejected with ExchangeTimeout (the request aborted). */
export function exchange(
  pool: Pool,
  request: Dispatcher.DispatchOptions,
  headerName: string,
  timeoutMs: number,
): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    let abort: ((reason: Error) => void) | undefined;
    let done = false;
    let status = 0;
    let header: string | undefined;
    const chunks: Buffer[] = [];
    const finish = (error: Error | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve({ status, header, text: Buffer.concat(chunks).toString("utf8") });
    };
    const timer = setTimeout(() => {
      const timeout = new ExchangeTimeout(timeoutMs);
      finish(timeout);
      abort?.(timeout);
    }, timeoutMs).unref();
    const handler = {
      onConnect(abortRequest: (reason: Error) => void) {
        if (done) abortRequest(new ExchangeTimeout(timeoutMs));
        else abort = abortRequest;
      },
      onHeaders(statusCode: number, raw: Buffer[]) {
        if (statusCode < 200) return true; // an informational answer: the final one follows
        status = statusCode;
        header = headerOf(raw, headerName);
        return true;
      },
      onData(chunk: Buffer) {
        chunks.push(chunk);
        return true;
      },
      onComplete: () => finish(undefined),
      onError: (error: Error) => finish(error),
    };
    pool.dispatch(request, handler as unknown as Dispatcher.DispatchHandler);
  });
}
