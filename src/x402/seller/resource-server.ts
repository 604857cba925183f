// The x402 resource server: @x402/core with the exact schemes of the configured networks, the upto and
// batch-settlement schemes of the EVM ones (offered only where a facilitator's /supported lists them:
// src/x402/seller/upto-offer.ts, src/x402/seller/batch/offer.ts), and Bazaar, over the facilitator set of
// FACILITATOR_URL (src/x402/seller/facilitators/).

import type { PaymentRequirements, SchemeNetworkServer } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { UptoEvmScheme } from "@x402/evm/upto/server";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { type Config, usesRemoteFacilitator } from "../../config.ts";
import type { Logger } from "../../log.ts";
import type { Store } from "../../store/store.ts";
import { receiverAuthorizer } from "./batch/authorizer-key.ts";
import { batchSchemes } from "./batch/offer.ts";
import type { PooledFacilitatorClient } from "./facilitator-client.ts";
import { createEntryClient } from "./facilitators/create.ts";
import { FollowingResourceServer } from "./facilitators/following-server.ts";
import type { FacilitatorSet } from "./facilitators/set.ts";

/** The client of the first facilitator of the list (preflight and tests of one facilitator). */
export function createFacilitatorClient(config: Config, localUrl?: string): PooledFacilitatorClient {
  return createEntryClient(config.facilitator, config.facilitatorTimeoutMs, localUrl);
}

/**
 * With the local facilitator alone, Solana offers carry the pretend chain's latest blockhash as the exact-SVM
 * hint (`extra.recentBlockhash`, `extra.lastValidBlockHeight`), so a buyer needs no RPC for it. The hint is a
 * blockhash that dies in about 60 s: offers holding one are rebuilt every SOLANA_HINT_REFRESH_MS.
 */
export function solanaHintRefreshMs(config: Config): number | undefined {
  const hinted = !usesRemoteFacilitator(config) && config.networks.some((n) => n.kind === "svm");
  return hinted ? SOLANA_HINT_REFRESH_MS : undefined;
}
const SOLANA_HINT_REFRESH_MS = 15_000;

async function exactSvmScheme(config: Config): Promise<SchemeNetworkServer> {
  // The SVM scheme brings Solana Kit and the token programs: imported only when a Solana network is served.
  const { ExactSvmScheme } = await import("@x402/svm/exact/server");
  if (solanaHintRefreshMs(config) === undefined) return new ExactSvmScheme();
  const { latestBlockhash } = await import("../facilitator/solana-blocks.ts");
  return new (class extends ExactSvmScheme {
    override async enhancePaymentRequirements(
      requirements: PaymentRequirements,
      kind: Parameters<SchemeNetworkServer["enhancePaymentRequirements"]>[1],
      extensionKeys: string[],
    ): Promise<PaymentRequirements> {
      const enhanced = await super.enhancePaymentRequirements(requirements, kind, extensionKeys);
      const { blockhash, lastValidBlockHeight } = latestBlockhash(enhanced.network, Date.now());
      const hint = { recentBlockhash: blockhash, lastValidBlockHeight: String(lastValidBlockHeight) };
      return { ...enhanced, extra: { ...enhanced.extra, ...hint } };
    }
  })();
}

export async function createResourceServer(
  config: Config,
  facilitators: FacilitatorSet,
  store?: Store,
  log?: Logger,
): Promise<FollowingResourceServer> {
  const server = new FollowingResourceServer(facilitators);
  for (const network of config.networks) {
    const scheme = network.kind === "evm" ? new ExactEvmScheme() : await exactSvmScheme(config);
    server.register(network.caip2, scheme);
    if (network.kind === "evm") server.register(network.caip2, new UptoEvmScheme());
  }
  if (store) registerBatchSettlement(server, config, store, log);
  server.registerExtension(bazaarResourceServerExtension);
  await server.initialize();
  return server;
}

/** The batch-settlement server scheme of each EVM network, where this node has a receiver authorizer. */
function registerBatchSettlement(
  server: FollowingResourceServer,
  config: Config,
  store: Store,
  log?: Logger,
): void {
  const authorizer = receiverAuthorizer(config);
  if (!authorizer.signer) {
    if (config.batch.enabled)
      log?.warn({ reason: authorizer.unavailable }, "batch-settlement is not offered");
    return;
  }
  if (authorizer.source === "data-dir-created") {
    log?.info(
      { address: authorizer.signer.address },
      "generated the batch-settlement receiver-authorizer key in DATA_DIR",
    );
  }
  for (const { network, scheme } of batchSchemes(config, store, authorizer.signer)) {
    server.register(network.caip2, scheme);
  }
}
