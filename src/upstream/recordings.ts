// Recordings: upstream answers stored as the upstream sends them, served by UPSTREAMS=replay through the
// real adapters. Each `*.recording.json` names its upstream, the request it answers and the response.
import fs from "node:fs";
import path from "node:path";
import { UpstreamError, type UpstreamRequest, type UpstreamResponse } from "./exchange.ts";

/**
 * Where a recording's bytes come from: a public capture (a client's fixture or cassette), a registry mirror this
 * project reached itself, or no capture at all (then what it was written from).
 */
type RecordingSource =
  | { capture: "public"; repository: string; path: string; commit: string }
  | { capture: "mirror"; url: string; capturedOn: string; note?: string }
  | { capture: "none"; writtenFrom: string };

/** Why `source` is not one of the shapes above, or undefined when it is. */
export function sourceProblem(source: unknown): string | undefined {
  if (source === undefined) return "every recording must name where its bytes come from";
  const s = source as Record<string, unknown> | null;
  const text = (key: string) => typeof s?.[key] === "string" && (s[key] as string).trim() !== "";
  switch (s?.capture) {
    case "public":
      if (!text("repository") || !/^[\w.-]+\/[\w.-]+$/.test(String(s.repository)))
        return "repository must be owner/name";
      if (!text("path")) return "path is required";
      return /^[0-9a-f]{7,40}$/.test(String(s.commit)) ? undefined : "commit must be a hex commit id";
    case "mirror":
      return text("url") && text("capturedOn") ? undefined : "url and capturedOn are required";
    case "none":
      return text("writtenFrom") ? undefined : "writtenFrom is required";
    default:
      return 'capture must be "public", "mirror" or "none"';
  }
}

export interface RecordingFile {
  /** Always true: a recording is a sample of the upstream's documented shape, never live data. */
  sample: true;
  description: string;
  source: RecordingSource;
  upstream: string;
  request: { method: "GET" | "POST"; path: string; query?: Record<string, string> };
  response: { status: number; headers?: Record<string, string>; body?: string; bodyFile?: string };
}

export interface Recording extends RecordingFile {
  file: string;
  body: string;
}

export function loadRecordings(dir: string): Recording[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".recording.json"))
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      const meta = JSON.parse(fs.readFileSync(file, "utf8")) as RecordingFile;
      if (meta.sample !== true) throw new Error(`${file}: a recording must say "sample": true`);
      const problem = sourceProblem(meta.source);
      if (problem) throw new Error(`${file}: source: ${problem}`);
      const body = meta.response.bodyFile
        ? fs.readFileSync(path.join(dir, meta.response.bodyFile), "utf8")
        : (meta.response.body ?? "");
      return { ...meta, file, body };
    });
}

export class RecordingIndex {
  private readonly recordings: Recording[];
  constructor(recordings: Recording[]) {
    this.recordings = recordings;
  }

  get size(): number {
    return this.recordings.length;
  }

  /** The recording whose path matches and whose recorded query parameters all appear in the request. */
  find(upstream: string, method: string, request: UpstreamRequest): Recording | undefined {
    return this.recordings.find(
      (r) =>
        r.upstream === upstream &&
        r.request.method === method &&
        r.request.path === request.path &&
        Object.entries(r.request.query ?? {}).every(([k, v]) => String(request.query?.[k] ?? "") === v),
    );
  }

  answer(upstream: string, method: string, request: UpstreamRequest, url: string): UpstreamResponse {
    const recording = this.find(upstream, method, request);
    if (!recording)
      throw new UpstreamError(
        upstream,
        `no recording answers ${method} ${request.path} (UPSTREAMS=replay)`,
        404,
      );
    return {
      status: recording.response.status,
      headers: new Headers(recording.response.headers ?? {}),
      body: recording.body,
      url,
      notModified: false,
      recordedSample: true,
    };
  }
}
