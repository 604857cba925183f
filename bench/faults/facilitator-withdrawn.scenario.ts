// Both facilitators' /supported drop base-sepolia: how long until the 402 stops offering it (re-read every
// 1 s here), while buyers keep paying on base.
import { decodeBase64Json } from "../../test/harness.ts";
import { ITEM, pay, settledRows, withStand } from "./facilitator-harness.ts";
import type { FaultRow } from "./row.ts";

const SEPOLIA = "eip155:84532";

export default {
  name: "facilitator-withdrawn",
  run: () =>
    withStand(
      { NETWORKS: "base,base-sepolia", FACILITATOR_SUPPORTED_REFRESH_MS: "1000" },
      async ({ a, b, service }): Promise<FaultRow> => {
        for (const stub of [a, b])
          stub.supported.kinds.push({ x402Version: 2, scheme: "exact", network: SEPOLIA });
        const offers = async () => {
          const response = await fetch(`${service.url}${ITEM}`);
          const accepts = decodeBase64Json(response.headers.get("payment-required")).accepts as Array<{
            network: string;
          }>;
          return accepts.some((x) => x.network === SEPOLIA);
        };
        const deadline = Date.now() + 5000;
        while (!(await offers()) && Date.now() < deadline) await pay(service, 1);
        const before = await settledRows(service);
        const withdrawnAt = performance.now();
        for (const stub of [a, b])
          stub.supported.kinds = stub.supported.kinds.filter((k) => k.network !== SEPOLIA);
        const calls: Array<{ status: number; ms: number }> = [];
        let recoveryMs: number | null = null;
        while (performance.now() - withdrawnAt < 5000) {
          calls.push(...(await pay(service, 1)));
          if (recoveryMs === null && !(await offers()))
            recoveryMs = Math.round(performance.now() - withdrawnAt);
        }
        const settled = (await settledRows(service)) - before;
        return {
          fault: "/supported withdraws base-sepolia (re-read every 1 s)",
          attempted: calls.length,
          delivered: calls.filter((c) => c.status === 200).length,
          charged: settled,
          refused: calls.filter((c) => c.status !== 200).length,
          worstLatencyMs: Math.round(Math.max(0, ...calls.map((c) => c.ms))),
          recoveryMs,
          notes: "recovery: time until the 402 no longer offers the withdrawn network",
        };
      },
    ),
};
