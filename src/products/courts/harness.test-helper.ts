// Used by this family's tests only: the shared family harness opened on the courts family, and a loopback
// CourtListener that answers from the recordings.
import fs from "node:fs";
import path from "node:path";
import { type FamilyTestContext, openFamilyContext } from "../../../test/family-harness.ts";
import { COURTS_RECORDINGS_DIR, courtsFamily } from "./index.ts";

export {
  type LoopbackUpstream,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../test/family-harness.ts";

/** Tests do not wait between upstream requests. */
const FAST = { COURTLISTENER_MIN_INTERVAL_MS: "0" };

export function openTestContext(env: Record<string, string> = {}): Promise<FamilyTestContext> {
  return openFamilyContext(courtsFamily, { ...FAST, ...env });
}

/** A live context whose CourtListener is the given loopback base URL. */
export function openLiveContext(baseUrl: string, env: Record<string, string> = {}) {
  return openTestContext({ UPSTREAMS: "live", COURTLISTENER_BASE_URL: baseUrl, ...env });
}

export function recordedBody(file: string): string {
  return fs.readFileSync(path.join(COURTS_RECORDINGS_DIR, file), "utf8");
}

export const RECORDED_PAGE = recordedBody("search-fourth-amendment.json");
/** The body of the recorded no-hits page. */
export const EMPTY_PAGE = (
  JSON.parse(recordedBody("search-no-hits.recording.json")) as { response: { body: string } }
).response.body;
