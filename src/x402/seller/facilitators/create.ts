// The facilitator set of a configuration: one client per FACILITATOR_URL entry, each with its own auth.
import type { Config, FacilitatorEntry } from "../../../config.ts";
import type { Logger } from "../../../log.ts";
import { CdpFacilitatorClient } from "../cdp-auth.ts";
import { type InProcessFacilitator, PooledFacilitatorClient } from "../facilitator-client.ts";
import { memberIdentities } from "./member.ts";
import { type FacilitatorRecords, FacilitatorSet } from "./set.ts";

/** The client of one entry: CDP-signed, with fixed headers, or the embedded facilitator at `localUrl`. */
export function createEntryClient(
  entry: FacilitatorEntry,
  timeoutMs: number,
  localUrl?: string,
  inProcess?: InProcessFacilitator,
): PooledFacilitatorClient {
  if (entry.kind === "local") {
    if (!localUrl) throw new Error("the local facilitator URL is known only once the server listens");
    return new PooledFacilitatorClient({ url: localUrl, timeoutMs }, inProcess);
  }
  const { url, headers, cdp } = entry;
  if (cdp) return new CdpFacilitatorClient({ url, timeoutMs, credentials: cdp, headers });
  const hasHeaders = Object.keys(headers).length > 0;
  return new PooledFacilitatorClient({
    url,
    timeoutMs,
    createAuthHeaders: hasHeaders
      ? async () => ({ verify: headers, settle: headers, supported: headers, bazaar: headers })
      : undefined,
  });
}

/** The label each entry is logged and measured under (its host, or "local"). */
export function facilitatorLabels(config: Pick<Config, "facilitators">): string[] {
  return memberIdentities(config.facilitators.map((f) => (f.kind === "local" ? "local" : f.url))).map(
    (i) => i.label,
  );
}

export function createFacilitatorSet(
  config: Config,
  options: { localUrl?: string; inProcess?: InProcessFacilitator; log: Logger; records?: FacilitatorRecords },
): FacilitatorSet {
  const identities = memberIdentities(config.facilitators.map((f) => (f.kind === "local" ? "local" : f.url)));
  return new FacilitatorSet(
    config.facilitators.map((entry, i) => ({
      identity: identities[i] as { label: string; storeKey: string },
      client: createEntryClient(entry, config.facilitatorTimeoutMs, options.localUrl, options.inProcess),
    })),
    {
      health: config.facilitatorHealth,
      routeTtlMs: config.maxTimeoutSeconds * 1000 * 2,
      log: options.log,
      ...(options.records ? { records: options.records } : {}),
      report: config.role !== "worker",
    },
  );
}
