// Used by tests only: a loopback server that plays one upstream from a family's recordings (the same files
// UPSTREAMS=replay serves), so live-mode code paths (timeouts, retries, ETags) run against recorded shapes.
import type http from "node:http";
import {
  type LoopbackUpstream,
  openFamilyContext,
  startLoopbackUpstream,
} from "../../../test/family-harness.ts";
import { loadRecordings, RecordingIndex } from "../../upstream/recordings.ts";
import { npmFamily } from "./index.ts";

export { type LoopbackUpstream, startLoopbackUpstream } from "../../../test/family-harness.ts";

export type Override = (
  url: URL,
  request: http.IncomingMessage,
) => { status: number; headers?: Record<string, string>; body: string } | undefined;

/** Answers each request with the recording of `upstream` that matches its path and query, else 404. */
export function startRecordedUpstream(
  recordingsDir: string,
  upstream: string,
  override?: Override,
): Promise<LoopbackUpstream> {
  const index = new RecordingIndex(loadRecordings(recordingsDir));
  return startLoopbackUpstream((url, request) => {
    const special = override?.(url, request);
    if (special) return special;
    const query = Object.fromEntries(url.searchParams.entries());
    // The loopback server sees the raw path; recordings name it as the adapter sends it.
    const recording = index.find(upstream, "GET", { path: url.pathname, query });
    if (!recording) return { status: 404, body: `no recording for ${url.pathname}` };
    return {
      status: recording.response.status,
      headers: recording.response.headers ?? {},
      body: recording.body,
    };
  });
}

export function openNpmContext(env: Record<string, string> = {}) {
  return openFamilyContext(npmFamily, env);
}
