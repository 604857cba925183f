// Used by this family's tests only: the shared family harness, opened on the EDGAR family with the companies
// that have recordings.
import {
  type FamilyTestContext,
  openFamilyContext,
  runWarmerRecorded,
} from "../../../test/family-harness.ts";
import { edgarFamily } from "./index.ts";
import { type EdgarSettings, readEdgarSettings } from "./settings.ts";

export {
  type LoopbackUpstream,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../test/family-harness.ts";

/** The companies with recorded submissions and company facts. */
export const RECORDED_TICKERS = "AAPL,MSFT,JNJ";

export function openTestContext(
  env: Record<string, string> = {},
  fetchImpl?: typeof fetch,
): Promise<FamilyTestContext> {
  return openFamilyContext(edgarFamily, { EDGAR_TICKERS: RECORDED_TICKERS, ...env }, fetchImpl);
}

/** A context whose ticker list and recorded companies are warmed, as after the first daily run. */
export async function openWarmedContext(env: Record<string, string> = {}): Promise<FamilyTestContext> {
  const ctx = await openTestContext(env);
  for (const warmer of ctx.family.warmers ?? []) await runWarmerRecorded(warmer, ctx);
  return ctx;
}

/** The family's settings as its factory reads them from the context's configuration. */
export function settingsOf(ctx: FamilyTestContext): EdgarSettings {
  return readEdgarSettings(ctx.service.config);
}
