// The buyer's Solana key: BUYER_SOLANA_KEY (the base58 64-byte secret Solana wallets export: the Ed25519 seed,
// then the public key), else the development key DATA_DIR/dev-solana-buyer.json (dev-wallets.ts), generated on
// first use like the EVM development buyer.
import { createKeyPairSignerFromBytes, getBase58Encoder, type KeyPairSigner } from "@solana/kit";
import { CliError } from "../cli-error.ts";
import { devSolanaBuyer } from "../x402/facilitator/dev-wallets.ts";

const BUYER_SOLANA_KEY = "BUYER_SOLANA_KEY";

/** The 64 bytes of a base58 secret, or a CliError naming the variable. */
function secretBytes(secret: string, origin: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(getBase58Encoder().encode(secret.trim()));
  } catch {
    throw new CliError(
      `${origin} must be a base58 Solana secret key (64 bytes), got characters outside base58`,
    );
  }
  if (bytes.length !== 64)
    throw new CliError(`${origin} must be a base58 Solana secret key of 64 bytes, got ${bytes.length} bytes`);
  return bytes;
}

async function signerOf(secret: string, origin: string): Promise<KeyPairSigner> {
  try {
    return await createKeyPairSignerFromBytes(secretBytes(secret, origin));
  } catch (error) {
    if (error instanceof CliError) throw error;
    // Kit refuses a secret whose last 32 bytes are not the public key of its first 32.
    throw new CliError(
      `${origin} is not a valid Solana key pair: its public half does not match its secret half`,
    );
  }
}

/** BUYER_SOLANA_KEY when set (validated), else the development key. */
export async function solanaBuyerSigner(
  dataDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ signer: KeyPairSigner; development: boolean }> {
  const secret = env[BUYER_SOLANA_KEY];
  if (secret !== undefined && secret !== "")
    return { signer: await signerOf(secret, BUYER_SOLANA_KEY), development: false };
  return { signer: (await devSolanaBuyer(dataDir)).signer, development: true };
}
