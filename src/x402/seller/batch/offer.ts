// When the 402 offers `batch-settlement` beside `exact`, and the SDK's server scheme that accepts its vouchers.
//
// x402 `batch-settlement` (EVM): a buyer deposits once into a channel, then pays each call with a voucher, a
// signature over the channel's new cumulative total, which the seller checks itself; the seller claims many
// vouchers in one transaction and settles them to its pay-to. The scheme runs as the SDK's
// `BatchSettlementEvmScheme` over paycall's store (store/channels.ts): one server scheme per EVM network,
// registered only where this node has a receiver authorizer (authorizer-key.ts). It is offered on a route
// priced per call (not billed by use) wherever a facilitator's /supported lists it on that network.
import type { x402ResourceServer } from "@x402/core/server";
import type { Network, PaymentPayload } from "@x402/core/types";
import type { AuthorizerSigner } from "@x402/evm/batch-settlement/server";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/server";
import type { Config } from "../../../config.ts";
import type { Store } from "../../../store/store.ts";
import type { NetworkInfo } from "../../shared/networks.ts";

export const BATCH = "batch-settlement";

/** The server scheme of every EVM network, over the network's channels in the store. */
export function batchSchemes(
  config: Pick<Config, "networks" | "payTo" | "batch">,
  store: Store,
  signer: AuthorizerSigner,
): Array<{ network: NetworkInfo; scheme: BatchSettlementEvmScheme }> {
  const receiver = config.payTo.evm as `0x${string}` | undefined;
  if (!receiver) return [];
  return config.networks
    .filter((n) => n.kind === "evm")
    .map((network) => ({
      network,
      scheme: new BatchSettlementEvmScheme(receiver, {
        storage: store.channels.storage(network.caip2),
        receiverAuthorizerSigner: signer,
        withdrawDelay: config.batch.withdrawDelaySec,
      }),
    }));
}

/** The networks on which a per-call price is also offered under batch-settlement. */
export function batchNetworks(server: x402ResourceServer, networks: NetworkInfo[]): NetworkInfo[] {
  return networks.filter(
    (n) =>
      n.kind === "evm" &&
      server.hasRegisteredScheme(n.caip2, BATCH) &&
      server.getSupportedKind(2, n.caip2, BATCH) !== undefined,
  );
}

/** The registered server scheme of a network, when batch-settlement is served there. */
export function batchSchemeOf(
  server: x402ResourceServer,
  network: string,
): BatchSettlementEvmScheme | undefined {
  const scheme = server.getRegisteredScheme(network as Network, BATCH);
  return scheme instanceof BatchSettlementEvmScheme ? scheme : undefined;
}

/** The kinds of batch-settlement payload a buyer sends with a call. */
type BatchPayloadType = "deposit" | "voucher" | "refund";

/** A batch-settlement payload's type, channel and signed cumulative total, read without trusting it. */
export function batchVoucherOf(
  payload: PaymentPayload,
): { type: BatchPayloadType; channelId: string; maxClaimableAmount: string; payer?: string } | undefined {
  if (payload.accepted?.scheme !== BATCH) return undefined;
  const inner = payload.payload as Record<string, unknown> | undefined;
  const voucher = inner?.voucher as { channelId?: unknown; maxClaimableAmount?: unknown } | undefined;
  const type = inner?.type;
  if (type !== "deposit" && type !== "voucher" && type !== "refund") return undefined;
  if (typeof voucher?.channelId !== "string" || typeof voucher.maxClaimableAmount !== "string")
    return undefined;
  const payer = (inner?.channelConfig as { payer?: unknown } | undefined)?.payer;
  return {
    type,
    channelId: voucher.channelId.toLowerCase(),
    maxClaimableAmount: voucher.maxClaimableAmount,
    ...(typeof payer === "string" ? { payer } : {}),
  };
}
