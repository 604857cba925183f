// The one shape every status endpoint uses to report a warmer: when it last ran, how it ended, its counts.
import { z } from "zod";
import type { HandlerContext, Warmer } from "./product.ts";

const Timestamp = z.iso.datetime().nullable();

export const WarmerStatusAnswer = z.object({
  name: z.string(),
  everyMs: z.number().int().positive(),
  lastRunAt: Timestamp,
  lastFinishedAt: Timestamp,
  lastOk: z.boolean().nullable(),
  lastSuccessAt: Timestamp,
  lastError: z.string().nullable(),
  lastErrorAt: Timestamp,
  counts: z.record(z.string(), z.unknown()).nullable().describe("Counts of the last successful run"),
  runs: z.number().int().nonnegative(),
});

type WarmerStatusBody = z.infer<typeof WarmerStatusAnswer>;

export async function warmerStatus(
  ctx: HandlerContext,
  warmer: Pick<Warmer, "name" | "everyMs">,
): Promise<WarmerStatusBody> {
  const { warmer: name, ...runs } = await ctx.store.warmerRuns.status(warmer.name);
  return { name, everyMs: warmer.everyMs, ...runs };
}
