// Used by this family's tests only: the shared family harness opened on the FRED family, and a loopback
// "live" FRED that answers from the recordings (so the live adapter runs over the same documented shapes).
import {
  type FamilyTestContext,
  type LoopbackUpstream,
  openFamilyContext,
  startLoopbackUpstream,
} from "../../../test/family-harness.ts";
import { loadRecordings } from "../../upstream/recordings.ts";
import { FRED_RECORDINGS_DIR, fredFamily } from "./index.ts";

export { type LoopbackUpstream, runWarmerRecorded } from "../../../test/family-harness.ts";

export const TEST_API_KEY = "abcdefghijklmnopqrstuvwxyz012345";

export function openTestContext(env: Record<string, string> = {}): Promise<FamilyTestContext> {
  return openFamilyContext(fredFamily, env);
}

export type FredAnswer = { status: number; headers?: Record<string, string>; body: string };

/** FRED on loopback: the recorded answer for the path and series_id, unless `override` answers first. */
export function startRecordedFred(
  override?: (url: URL) => FredAnswer | undefined,
): Promise<LoopbackUpstream> {
  const recordings = loadRecordings(FRED_RECORDINGS_DIR);
  return startLoopbackUpstream((url) => {
    const overridden = override?.(url);
    if (overridden) return overridden;
    const recording = recordings.find(
      (r) =>
        r.request.path === url.pathname &&
        (r.request.query?.series_id ?? null) === url.searchParams.get("series_id") &&
        (r.request.query?.release_id ?? null) === url.searchParams.get("release_id"),
    );
    if (!recording)
      return {
        status: 400,
        headers: { "content-type": "application/json" },
        body: '{"error_code":400,"error_message":"Bad Request.  The series does not exist."}',
      };
    return { status: recording.response.status, headers: recording.response.headers, body: recording.body };
  });
}

export async function openLiveContext(
  env: Record<string, string> = {},
  override?: (url: URL) => FredAnswer | undefined,
): Promise<{ ctx: FamilyTestContext; upstream: LoopbackUpstream; close: () => Promise<void> }> {
  const upstream = await startRecordedFred(override);
  const ctx = await openTestContext({
    UPSTREAMS: "live",
    FRED_BASE_URL: upstream.baseUrl,
    FRED_API_KEY: TEST_API_KEY,
    FRED_REDISTRIBUTION: "permitted",
    ...env,
  });
  return {
    ctx,
    upstream,
    close: async () => {
      await ctx.close();
      await upstream.close();
    },
  };
}

/** The family's products by sku. */
export function productOf(ctx: FamilyTestContext, sku: string) {
  const found = ctx.family.products.find((p) => p.sku === sku);
  if (!found) throw new Error(`no product ${sku}`);
  return found;
}
