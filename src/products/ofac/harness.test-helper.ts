// Used by this family's tests only: the shared family harness opened on the OFAC family, and the recordings.
import fs from "node:fs";
import path from "node:path";
import { type FamilyTestContext, openFamilyContext } from "../../../test/family-harness.ts";
import { OFAC_RECORDINGS_DIR, ofacFamily } from "./index.ts";

export {
  type LoopbackUpstream,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../test/family-harness.ts";

export function openTestContext(env: Record<string, string> = {}): Promise<FamilyTestContext> {
  return openFamilyContext(ofacFamily, env);
}

export const SDN_XML = fs.readFileSync(path.join(OFAC_RECORDINGS_DIR, "sdn-sample.xml"), "utf8");
export const CONSOLIDATED_XML = fs.readFileSync(
  path.join(OFAC_RECORDINGS_DIR, "consolidated-sample.xml"),
  "utf8",
);
