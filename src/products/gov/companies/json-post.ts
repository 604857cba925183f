// A small JSON POST for the registers whose search is a POST (ARES `ekonomicke-subjekty/vyhledat`): the shared
// UpstreamClient only does GET. It keeps the client's rules: the same User-Agent, the `<NAME>_BASE_URL`
// override, the upstream's request spacing booked through the store (one budget with its GET requests), a
// timeout, one retry on 429/5xx, and in replay mode an answer from this family's recordings, matched on the
// path and on the body's top-level fields listed as the recording's `query`.
import { setTimeout as sleep } from "node:timers/promises";
import { upstreamBaseUrl } from "../../../config.ts";
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../../upstream/client.ts";
import { loadRecordings, RecordingIndex } from "../../../upstream/recordings.ts";
import { COMPANIES_RECORDINGS_DIR } from "./paths.ts";
import type { Ctx } from "./register.ts";

let replayIndex: RecordingIndex | undefined;

function recordings(): RecordingIndex {
  replayIndex ??= new RecordingIndex(loadRecordings(COMPANIES_RECORDINGS_DIR));
  return replayIndex;
}

function asQuery(body: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value !== undefined && value !== null && typeof value !== "object") fields[key] = String(value);
  }
  return fields;
}

export async function postJson(
  ctx: Ctx,
  spec: UpstreamSpec,
  path: string,
  body: Record<string, unknown>,
  /** More request headers (an Authorization the register requires). */
  headers: Record<string, string> = {},
): Promise<UpstreamResponse> {
  const baseUrl = upstreamBaseUrl(ctx.config, spec.name, spec.defaultBaseUrl).replace(/\/+$/, "");
  const url = `${baseUrl}${path}`;
  if (ctx.upstreams.mode === "replay") {
    return recordings().answer(spec.name, "POST", { path, query: asQuery(body) }, url);
  }
  const attempts = 2;
  let last: UpstreamError | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const startAt = await ctx.store.upstreamBudgets
      .reserve(spec.budget ?? spec.name, spec.minIntervalMs ?? 250)
      .catch(() => Date.now());
    if (startAt > Date.now()) await sleep(startAt - Date.now());
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "user-agent": ctx.upstreams.userAgent,
          "content-type": "application/json",
          accept: "application/json",
          ...headers,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(spec.timeoutMs ?? 30_000),
      });
      if (response.status === 429 || response.status >= 500) {
        await response.body?.cancel();
        last = new UpstreamError(spec.name, `HTTP ${response.status} from POST ${url}`, response.status);
        const retryAfter = Number(response.headers.get("retry-after"));
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 3000) : 500);
        continue;
      }
      return {
        status: response.status,
        headers: response.headers,
        body: await response.text(),
        url,
        notModified: false,
        recordedSample: false,
      };
    } catch (error) {
      last = new UpstreamError(
        spec.name,
        `POST ${url} failed: ${error instanceof Error ? error.message : error}`,
      );
    }
  }
  throw last ?? new UpstreamError(spec.name, `no answer from POST ${url}`);
}
