// Used by this family's tests only: the shared family harness opened on the NVD family, the recordings,
// and a loopback NVD that pages the recorded window the way NVD pages.
import fs from "node:fs";
import path from "node:path";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { openFamilyContext } from "../../../test/family-harness.ts";
import type { RecordingFile } from "../../upstream/recordings.ts";
import { NVD_RECORDINGS_DIR, nvdFamily } from "./index.ts";
import { nvdUpstream } from "./upstream.ts";

export {
  type LoopbackUpstream,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../test/family-harness.ts";

export function openTestContext(env: Record<string, string> = {}): Promise<FamilyTestContext> {
  return openFamilyContext(nvdFamily, env);
}

/** A recording's metadata and body as the upstream would send it. */
export function readRecording(name: string): RecordingFile & { body: string } {
  const meta = JSON.parse(
    fs.readFileSync(path.join(NVD_RECORDINGS_DIR, `${name}.recording.json`), "utf8"),
  ) as RecordingFile;
  const body = meta.response.bodyFile
    ? fs.readFileSync(path.join(NVD_RECORDINGS_DIR, meta.response.bodyFile), "utf8")
    : (meta.response.body ?? "");
  return { ...meta, body };
}

export function recordedJson(name: string): Record<string, unknown> {
  return JSON.parse(readRecording(name).body) as Record<string, unknown>;
}

/** The recorded window's records served page by page for startIndex/resultsPerPage, as NVD pages. */
export function pagedWindowAnswer(url: URL): {
  status: number;
  headers: Record<string, string>;
  body: string;
} {
  const page = recordedJson("cves-modified-window");
  const all = page.vulnerabilities as unknown[];
  const startIndex = Number(url.searchParams.get("startIndex") ?? "0");
  const perPage = Number(url.searchParams.get("resultsPerPage") ?? "2000");
  const slice = all.slice(startIndex, startIndex + perPage);
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      ...page,
      resultsPerPage: slice.length,
      startIndex,
      totalResults: all.length,
      vulnerabilities: slice,
    }),
  };
}

/** A recording's status, headers and body, for a loopback server to answer with. */
export function recordedAnswer(name: string): {
  status: number;
  headers: Record<string, string>;
  body: string;
} {
  const recording = readRecording(name);
  return {
    status: recording.response.status,
    headers: recording.response.headers ?? {},
    body: recording.body,
  };
}

/**
 * Registers the NVD client before the family's code asks for it, without NVD's 6.5-second request spacing
 * or its minute-long pause after a rate-limit refusal, keeping its retries and the statuses it counts as
 * refusals: the registry keeps the first client made per upstream name.
 */
export function useFastNvdClient(ctx: { upstreams: FamilyTestContext["upstreams"] }): void {
  const spec = nvdUpstream({ apiKey: undefined });
  ctx.upstreams.client({
    ...spec,
    minIntervalMs: 0,
    firstBackoffMs: 0,
    throttle: { ...spec.throttle!, defaultPauseMs: 0 },
  });
}
