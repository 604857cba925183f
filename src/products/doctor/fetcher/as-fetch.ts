// The safe fetcher behind the standard fetch signature, for @x402/fetch's payment wrapper.
import type { SafeFetcher, SafeRequest, SafeResponse } from "./safe-fetcher.ts";

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

interface FetchObserver {
  onRequest?: (headers: Record<string, string>) => void;
  onResponse?: (response: SafeResponse) => void;
}

export function asFetch(fetcher: SafeFetcher, observer: FetchObserver = {}): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    observer.onRequest?.(headers);
    const method = request.method.toUpperCase() as NonNullable<SafeRequest["method"]>;
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const answer = await fetcher.fetch({ url: request.url, method, headers, ...(body ? { body } : {}) });
    observer.onResponse?.(answer);
    return new Response(NULL_BODY_STATUSES.has(answer.status) ? null : new Uint8Array(answer.body), {
      status: answer.status,
      headers: answer.headers,
    });
  };
}
