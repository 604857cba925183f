// The receiver-authorizer key of the batch-settlement scheme: the seller's own key that signs its claims and
// cooperative refunds (the channel contract checks the receiverAuthorizer written into each channel's config).
// Kept like the receipt key: BATCH_RECEIVER_AUTHORIZER_KEY, or in development generated once into
// DATA_DIR/batch-receiver-authorizer.key. With a remote facilitator (real money) or a PostgreSQL store shared
// by several nodes the setting is required: a channel names one authorizer, so every node must sign as it.
import type { AuthorizerSigner } from "@x402/evm/batch-settlement/server";
import { privateKeyToAccount } from "viem/accounts";
import { type Config, ConfigError, usesRemoteFacilitator } from "../../../config.ts";
import { loadOrCreateSecret } from "../receipts/signing-key.ts";

export const AUTHORIZER_KEY_FILE = "batch-receiver-authorizer.key";

export type ReceiverAuthorizer =
  | { signer: AuthorizerSigner; source: "setting" | "data-dir" | "data-dir-created" }
  | { signer?: undefined; unavailable: string };

const loaded = new Map<string, ReceiverAuthorizer>();

function accountOf(hex: string, from: string): AuthorizerSigner {
  try {
    return privateKeyToAccount(hex as `0x${string}`);
  } catch {
    throw new ConfigError(from, "is not a valid secp256k1 private key");
  }
}

/** This node's receiver authorizer, or why batch-settlement is not offered. Loaded once per process. */
export function receiverAuthorizer(
  config: Pick<Config, "batch" | "dataDir" | "facilitators" | "database">,
): ReceiverAuthorizer {
  const { batch } = config;
  if (!batch.enabled) return { unavailable: "BATCH_SETTLEMENT=off" };
  const configured = batch.receiverAuthorizerKey?.reveal();
  if (configured)
    return { signer: accountOf(configured, "BATCH_RECEIVER_AUTHORIZER_KEY"), source: "setting" };
  if (usesRemoteFacilitator(config) || config.database.kind === "postgres") {
    return {
      unavailable:
        "BATCH_RECEIVER_AUTHORIZER_KEY is unset: with a remote facilitator or a shared PostgreSQL store it is required (one key for every node)",
    };
  }
  let found = loaded.get(config.dataDir);
  if (!found) {
    const { secret, created } = loadOrCreateSecret(config.dataDir, AUTHORIZER_KEY_FILE);
    const signer = accountOf(`0x${secret.toString("hex")}`, AUTHORIZER_KEY_FILE);
    found = { signer, source: created ? "data-dir-created" : "data-dir" };
    loaded.set(config.dataDir, found);
  }
  return found;
}
