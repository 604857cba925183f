// What every register's free status route says: mode, upstream, the last good and failed fetch, the lookup
// queue, the fetch lane's wait, and when it was asked; each country adds its own (credentials set, name index, feeds).
import { z } from "zod";
import type { LaneFigures } from "../../../catalog/family-context.ts";
import type { HandlerContext } from "../../../catalog/product.ts";
import type { UpstreamSpec } from "../../../upstream/client.ts";
import { FetchHealthAnswer } from "../../../upstream/live-cache.ts";
import { readGovFetch } from "../shared/fetch-health.ts";
import { type GovRouteInfo, govSku } from "../shared/gov-product.ts";
import { companyQueue } from "./register.ts";

export const RegisterStatusShape = {
  ok: z.literal(true),
  mode: z.enum(["live", "replay"]),
  upstream: z.url(),
  ...FetchHealthAnswer.shape,
  lookups: z
    .object({
      queued: z.number().int().nonnegative(),
      running: z.number().int().nonnegative(),
      done: z.number().int().nonnegative(),
      dead: z.number().int().nonnegative(),
    })
    .describe("Fetch-on-miss jobs for ids"),
  fetchLane: z
    .object({
      due: z.number().int().nonnegative(),
      running: z.number().int().nonnegative(),
      oldestDueAgeSec: z.number().int().nonnegative().nullable(),
    })
    .describe(
      "The worker lane every buyer-triggered fetch waits in (all registers and products): jobs due and waiting for a slot, running, and how long the oldest due one has waited",
    ),
  generatedAt: z.iso.datetime(),
};

export async function registerStatus(ctx: HandlerContext, info: GovRouteInfo, upstream: UpstreamSpec) {
  const [health, lookups, lanes] = await Promise.all([
    readGovFetch(ctx.store, govSku(info.cc, info.family)),
    ctx.store.jobs.counts(companyQueue(info)),
    ctx.store.jobs.laneFigures(),
  ]);
  const { lane: _fetch, ...fetchLane } = lanes.find((l) => l.lane === "fetch") as LaneFigures;
  return {
    ok: true as const,
    mode: ctx.upstreams.mode,
    upstream: ctx.upstreams.client(upstream).baseUrl,
    ...health,
    lookups,
    fetchLane,
    generatedAt: new Date().toISOString(),
  };
}
