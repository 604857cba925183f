// What every register's free status route says: mode, upstream, the last good and failed fetch, the lookup
// queue and when it was asked; each country adds its own (credentials set, name index, feeds).
import { z } from "zod";
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
  generatedAt: z.iso.datetime(),
};

export async function registerStatus(ctx: HandlerContext, info: GovRouteInfo, upstream: UpstreamSpec) {
  const [health, lookups] = await Promise.all([
    readGovFetch(ctx.store, govSku(info.cc, info.family)),
    ctx.store.jobs.counts(companyQueue(info)),
  ]);
  return {
    ok: true as const,
    mode: ctx.upstreams.mode,
    upstream: ctx.upstreams.client(upstream).baseUrl,
    ...health,
    lookups,
    generatedAt: new Date().toISOString(),
  };
}
