// GET /v1/market/status (free): which node collects, the connection's state, the age of the last message,
// the counters, and each symbol's tick age and stale flag.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import type { MarketCollector } from "./collector.ts";
import type { MarketSettings } from "./settings.ts";
import { COLLECTOR_LEASE, readSnapshot } from "./snapshot.ts";
import { MARKET_SYMBOLS, TRADE_STREAMS } from "./symbols.ts";
import { MARKET_SOURCE } from "./ticks.ts";

const Timestamp = z.iso.datetime().nullable();

export const MarketStatusAnswer = z.object({
  ok: z.literal(true),
  collector: z.object({
    leader: z.string().nullable().describe("The node holding the collector lease, null when none does"),
    connection: z
      .enum(["connecting", "connected", "reconnecting", "stopped", "replay", "no-collector"])
      .describe("The leader's stream connection; no-collector when no node holds the lease"),
    connectedAt: Timestamp,
    lastMessageAt: Timestamp,
    lastMessageAgeMs: z.number().int().nonnegative().nullable(),
    msgs: z.number().int().nonnegative(),
    writes: z.number().int().nonnegative(),
    reconnects: z.number().int().nonnegative(),
    lastError: z.string().nullable(),
  }),
  thisNode: z
    .enum(["leader", "standby", "disabled", "not-running"])
    .describe(
      "This node's collector: disabled by MARKET_COLLECTOR=false; not-running when the worker is off",
    ),
  symbols: z.array(
    z.object({
      symbol: z.enum(MARKET_SYMBOLS),
      cached: z.boolean(),
      updatedAt: Timestamp,
      ageMs: z.number().int().nonnegative().nullable(),
      stale: z.boolean(),
    }),
  ),
  staleAfterMs: z.number().int().positive(),
  stream: z.string(),
  source: z.string().describe("The stream URL in use"),
  recordedSample: z.boolean(),
  mode: z.enum(["live", "replay"]),
  generatedAt: z.iso.datetime(),
});

export interface CollectorHandle {
  collector: MarketCollector | undefined;
}

export function marketStatusProduct(settings: MarketSettings, local: CollectorHandle) {
  return product({
    sku: "market.status",
    method: "GET",
    path: "/v1/market/status",
    summary: "Status of the crypto trade collector (free)",
    description:
      "Free. The node collecting the trade stream, its connection state, the age of the last message, the " +
      "message and write counters, and for each of the five symbols the age of its latest trade and whether it is stale.",
    status: "live",
    tags: ["market", "crypto", "status"],
    price: "0",
    answer: MarketStatusAnswer,
    source: MARKET_SOURCE,

    async handle(_input, ctx) {
      const now = Date.now();
      const [doc, leader] = await Promise.all([
        readSnapshot(ctx.store),
        ctx.store.leases.holder(COLLECTOR_LEASE),
      ]);
      const snap = doc?.body;
      const lastMessage = snap?.lastMessageAt ? Date.parse(snap.lastMessageAt) : null;
      const role = local.collector?.role;
      return ok({
        ok: true as const,
        collector: {
          leader: leader ?? null,
          connection: leader && snap && snap.holder === leader ? snap.connection : ("no-collector" as const),
          connectedAt: snap?.connectedAt ?? null,
          lastMessageAt: snap?.lastMessageAt ?? null,
          lastMessageAgeMs: lastMessage === null ? null : Math.max(0, now - lastMessage),
          msgs: snap?.msgs ?? 0,
          writes: snap?.writes ?? 0,
          reconnects: snap?.reconnects ?? 0,
          lastError: snap?.lastError ?? null,
        },
        thisNode: !settings.collectorEnabled
          ? ("disabled" as const)
          : role === "leader" || role === "standby"
            ? role
            : ("not-running" as const),
        symbols: MARKET_SYMBOLS.map((symbol) => {
          const tick = snap?.ticks[symbol];
          const ageMs = tick ? Math.max(0, now - Date.parse(tick.updatedAt)) : null;
          return {
            symbol,
            cached: tick !== undefined,
            updatedAt: tick?.updatedAt ?? null,
            ageMs,
            stale: ageMs === null || ageMs > settings.staleAfterMs,
          };
        }),
        staleAfterMs: settings.staleAfterMs,
        stream: TRADE_STREAMS,
        source: snap?.source ?? settings.streamUrl,
        recordedSample: doc?.recordedSample ?? false,
        mode: ctx.upstreams.mode,
        generatedAt: new Date(now).toISOString(),
      });
    },
  });
}
