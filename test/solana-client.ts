// A Solana buyer as tests make one: the unmodified @x402/svm exact client, its RPC pointed at a pretend chain, and
// the PAYMENT-SIGNATURE it signs captured instead of sent; and fresh Solana secret keys for settings.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { KeyPairSigner } from "@solana/kit";
import type { PaymentRequirements, SchemeNetworkClient } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { devSolanaBuyer } from "../src/x402/facilitator/dev-wallets.ts";
import { blockHeightAt, blockhashOf } from "../src/x402/facilitator/solana-blocks.ts";

/** Where a service's local facilitator answers Solana JSON-RPC. */
export const SOLANA_RPC_PATH = "/local-facilitator/solana-rpc";

/** The exact client; `age` signs with a blockhash the pretend chain issued that many blocks ago. */
export function solanaScheme(signer: KeyPairSigner, rpcUrl: string, age?: number): SchemeNetworkClient {
  const inner = new ExactSvmScheme(signer, { rpcUrl });
  if (age === undefined) return inner;
  return {
    scheme: "exact",
    findDefaultAsset: inner.findDefaultAsset,
    createPaymentPayload: (version: number, requirements: PaymentRequirements) => {
      const height = blockHeightAt(Date.now()) - age;
      return inner.createPaymentPayload(version, {
        ...requirements,
        extra: { ...requirements.extra, recentBlockhash: blockhashOf(requirements.network, height) },
      });
    },
  };
}

/** The PAYMENT-SIGNATURE a Solana buyer sends for `url` (captured from its own paid retry, not sent). */
export async function signedSolanaHeader(scheme: SchemeNetworkClient, url: string): Promise<string> {
  let header: string | undefined;
  const capture: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    header = request.headers.get("payment-signature") ?? undefined;
    if (header) return new Response("{}", { status: 418 });
    return fetch(request);
  };
  await wrapFetchWithPayment(capture, new x402Client().register("solana:*", scheme))(url);
  if (!header) throw new Error(`no payment was signed for ${url}`);
  return header;
}

/** A new Solana key pair's base58 64-byte secret, as a wallet exports it, and its address. */
export async function newSolanaSecretKey(): Promise<{ secretKey: string; address: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-solana-key-"));
  try {
    const { address } = await devSolanaBuyer(dir);
    const { secretKey } = JSON.parse(fs.readFileSync(path.join(dir, "dev-solana-buyer.json"), "utf8")) as {
      secretKey: string;
    };
    return { secretKey, address };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
