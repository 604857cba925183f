// Used by this family's tests only: the shared family harness, opened on the ECB family.
import { type FamilyTestContext, openFamilyContext } from "../../../test/family-harness.ts";
import { ecbFamily } from "./index.ts";

export {
  type LoopbackUpstream,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../test/family-harness.ts";

export function openTestContext(env: Record<string, string> = {}): Promise<FamilyTestContext> {
  return openFamilyContext(ecbFamily, env);
}
