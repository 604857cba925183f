// The buyer's Solana key: BUYER_SOLANA_KEY (the base58 64-byte secret Solana wallets export: the Ed25519 seed,
// then the public key), else the development key DATA_DIR/dev-solana-buyer.json (dev-wallets.ts), generated on
// first use like the EVM development buyer.
import type { KeyPairSigner } from "@solana/kit";
import { CliError } from "../cli-error.ts";
import { devSolanaBuyer } from "../x402/facilitator/dev-wallets.ts";
import { SolanaSecretKeyError, solanaKeyPair } from "../x402/shared/solana-secret-key.ts";

const BUYER_SOLANA_KEY = "BUYER_SOLANA_KEY";

/** BUYER_SOLANA_KEY when set (validated), else the development key. */
export async function solanaBuyerSigner(
  dataDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ signer: KeyPairSigner; development: boolean }> {
  const secret = env[BUYER_SOLANA_KEY];
  if (secret === undefined || secret === "")
    return { signer: (await devSolanaBuyer(dataDir)).signer, development: true };
  try {
    return { signer: await solanaKeyPair(secret), development: false };
  } catch (error) {
    if (error instanceof SolanaSecretKeyError) throw new CliError(`${BUYER_SOLANA_KEY} ${error.message}`);
    throw error;
  }
}
