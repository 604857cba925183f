// /health (what the node runs with, and its uncertain settlements) and /ready (whether it takes traffic).

import { localEvmRpcUrls, localSolanaRpcUrls } from "../config.ts";
import { jsonResponse } from "../responses.ts";
import type { AppDeps } from "./app-deps.ts";
import type { DisabledInfo } from "./disabled-families.ts";

export async function health(deps: AppDeps, disabledList: DisabledInfo[]): Promise<Response> {
  const { config, store } = deps.ctx;
  const solanaRpc = localSolanaRpcUrls(config);
  const evmRpc = localEvmRpcUrls(config);
  // Uncertain settlements and the chain-RPC alarm: an operator sees them without reading SQL.
  const settlements = await deps
    .paywall()
    ?.settlementStatus()
    .catch(() => undefined);
  return jsonResponse(
    200,
    {
      ok: true,
      service: "paycall",
      payments: deps.paywall() ? "ready" : "starting",
      ...(settlements ? { settlements } : {}),
      ...(store.health.down() ? { storeDown: store.health.down() } : {}),
      ...facilitatorHealth(deps),
      mode: {
        facilitator: config.facilitator.kind,
        upstreams: config.upstreams,
        store: store.kind,
      },
      networks: config.networks.map((n) => n.caip2),
      ...(Object.keys(solanaRpc).length ? { localSolanaRpc: solanaRpc } : {}),
      ...(Object.keys(evmRpc).length ? { localEvmRpc: evmRpc } : {}),
      ...(disabledList.length ? { disabledFamilies: disabledList } : {}),
      ...(config.facilitator.kind === "local"
        ? {
            notice:
              "Local facilitator: payments are settled against a pretend USDC ledger in the store. No real money moves.",
          }
        : {}),
      ...(config.upstreams === "replay"
        ? { upstreamNotice: "UPSTREAMS=replay: answers come from recorded samples, not live data." }
        : {}),
      checkedAt: new Date().toISOString(),
    },
    { "cache-control": "no-store" },
  );
}

/** Each facilitator's circuit and what it settles, for /health. */
function facilitatorHealth(deps: AppDeps): { facilitators?: unknown } {
  const set = deps.paywall()?.facilitators;
  if (!set) return {};
  return {
    facilitators: set.status().facilitators.map((f) => ({
      facilitator: f.facilitator,
      state: f.state,
      consecutiveFailures: f.consecutiveFailures,
      supported: f.supported,
      kinds: f.kinds,
    })),
  };
}

export async function ready(deps: AppDeps): Promise<Response> {
  const { config, store } = deps.ctx;
  const problems: string[] = [];
  // Taking payments with a facilitator down: still ready (payments go to the next), but said.
  let degraded: string[] = [];
  if (deps.draining()) problems.push("draining: shutting down");
  else {
    const paywall = deps.paywall();
    if (config.role !== "worker" && !paywall) problems.push("payments: not synced with the facilitator");
    const facilitators = config.role !== "worker" ? paywall?.facilitators?.health() : undefined;
    if (facilitators?.state === "down")
      problems.push(`payments: no facilitator can take payments (${facilitators.problems.join("; ")})`);
    else if (facilitators?.state === "degraded") degraded = facilitators.problems;
    const down = store.health.down();
    if (down) problems.push(`store: ${down.reason} since ${down.since}; paid calls are refused`);
    else if (!(await store.ping(2000))) problems.push("store: not answering");
  }
  return jsonResponse(
    problems.length ? 503 : 200,
    {
      ready: problems.length === 0,
      role: config.role,
      problems,
      ...(degraded.length ? { degraded } : {}),
      checkedAt: new Date().toISOString(),
    },
    { "cache-control": "no-store" },
  );
}
