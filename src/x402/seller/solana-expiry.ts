// A Solana payment lives as long as its transaction's blockhash: once the chain's block height passes the
// blockhash's lastValidBlockHeight (150 blocks, about 60 s, after it was issued) the transaction can never land.
// The paid handler's deadline is bounded so settlement starts while the transaction can still land (as validBefore
// bounds it on EVM); a payment arriving with too little life for any handler is refused before the handler runs
// (nothing charged, the buyer signs again with a fresh blockhash). Refusing up front a payment "too close to
// expiry for the route" cannot replace the bound: a fresh blockhash's 60 s is less than a long chat may take.

import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from "@solana/kit";
import type { PaymentPayload } from "@x402/core/types";
import { type Config, MIN_HANDLER_BUDGET_MS } from "../../config.ts";

/** Solana's slot time; block height grows at most this fast (skipped slots only slow it). */
export const SLOT_MS = 400;
/**
 * A transaction whose blockhash is not the 402's hint: its buyer fetched one just before signing, and a fresh
 * blockhash lives about 60 s. 15 s of that is allowed for its age, since nothing here says when it was fetched.
 */
export const UNHINTED_LIFE_MS = 45_000;
/** The transaction sent to the facilitator this long before its blockhash expires still lands. */
export const SETTLE_RESERVE_MS = 10_000;

interface TransactionLifetime {
  blockhash: string;
  /** Known when the buyer signed with the 402's recentBlockhash hint, which carries it. */
  lastValidBlockHeight?: number;
}

/** The blockhash of a payment's exact-SVM transaction, and its last valid block height when the hint was used. */
export function lifetimeOf(payload: PaymentPayload): TransactionLifetime | undefined {
  const transaction = (payload.payload as { transaction?: unknown } | undefined)?.transaction;
  if (typeof transaction !== "string") return undefined;
  let blockhash: string;
  try {
    const wire = getTransactionDecoder().decode(getBase64Encoder().encode(transaction));
    blockhash = getCompiledTransactionMessageDecoder().decode(wire.messageBytes).lifetimeToken;
  } catch {
    return undefined;
  }
  const extra = payload.accepted?.extra ?? {};
  const hinted = extra.recentBlockhash === blockhash ? Number(extra.lastValidBlockHeight) : Number.NaN;
  return Number.isSafeInteger(hinted) && hinted > 0
    ? { blockhash, lastValidBlockHeight: hinted }
    : { blockhash };
}

/** The chain's current block height for a network. */
type HeightReader = (network: string) => Promise<number>;

/** When (ms since the epoch) the transaction stops being able to land. */
export async function landsUntil(
  network: string,
  lifetime: TransactionLifetime,
  readHeight: HeightReader,
  now = Date.now(),
): Promise<number> {
  if (lifetime.lastValidBlockHeight === undefined) return now + UNHINTED_LIFE_MS;
  const height = await readHeight(network);
  // Valid while the block height is at most lastValidBlockHeight.
  return now + (lifetime.lastValidBlockHeight + 1 - height) * SLOT_MS;
}

/** The handler's deadline: settlement must start SETTLE_RESERVE_MS before the transaction stops landing. */
export function boundedDeadline(deadline: number, landsUntilMs: number): number {
  return Math.min(deadline, landsUntilMs - SETTLE_RESERVE_MS);
}

/**
 * A block height read from a JSON-RPC node (getBlockHeight), read again every `refreshMs` and carried forward
 * by SLOT_MS in between: one RPC round trip per network every few seconds, none per paid call. Carrying it forward
 * at the fastest pace over-counts heights, so the life it gives is never longer than the chain's.
 */
export function rpcHeightReader(rpcUrl: string, timeoutMs: number, refreshMs = 5_000): HeightReader {
  let last: { height: number; at: number } | undefined;
  let reading: Promise<{ height: number; at: number }> | undefined;
  const read = async () => {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "getBlockHeight",
        params: [{ commitment: "confirmed" }],
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
    if (typeof body.result !== "number")
      throw new Error(`getBlockHeight: ${body.error?.message ?? "no result"}`);
    return { height: body.result, at: Date.now() };
  };
  return async () => {
    const now = Date.now();
    if (!last || now - last.at >= refreshMs) {
      reading ??= read().finally(() => {
        reading = undefined;
      });
      last = await reading;
    }
    return last.height + Math.floor((Date.now() - last.at) / SLOT_MS);
  };
}

const rpcReaders = new Map<string, HeightReader>();

/**
 * The block height source for the service's Solana networks: the local facilitator's pretend chain in-process,
 * else each network's RPC (SOLANA_RPC_URL).
 */
function heightReaderFor(config: Config): HeightReader {
  if (config.facilitator.kind === "local")
    return async () => (await import("../facilitator/solana-blocks.ts")).blockHeightAt(Date.now());
  return async (network) => {
    const rpcUrl = config.rpcUrls[network];
    if (!rpcUrl) throw new Error(`no RPC for ${network}`);
    let reader = rpcReaders.get(rpcUrl);
    if (!reader) {
      reader = rpcHeightReader(rpcUrl, config.chainRpcTimeoutMs);
      rpcReaders.set(rpcUrl, reader);
    }
    return reader(network);
  };
}

/**
 * The paid handler's deadline for a Solana payment: `deadline` bounded by the transaction's life, or now when
 * less than MIN_HANDLER_BUDGET_MS would be left (the call is then refused before its handler runs). A height
 * that cannot be read counts as a blockhash of unknown age.
 */
export async function solanaDeadline(
  config: Config,
  payload: PaymentPayload,
  deadline: number,
  readHeight: HeightReader = heightReaderFor(config),
  now = Date.now(),
): Promise<number> {
  const lifetime = lifetimeOf(payload);
  // An undecodable transaction never verifies; nothing to bound.
  if (!lifetime) return deadline;
  if (lifetime.lastValidBlockHeight === undefined && config.facilitator.kind === "local") {
    // The pretend chain's blockhashes carry the height they were issued at: their life is known exactly.
    const blocks = await import("../facilitator/solana-blocks.ts");
    const issued = blocks.heightOfBlockhash(payload.accepted.network, lifetime.blockhash);
    if (issued !== undefined) lifetime.lastValidBlockHeight = issued + blocks.BLOCKHASH_VALID_BLOCKS;
  }
  const until = await landsUntil(payload.accepted.network, lifetime, readHeight, now).catch(
    () => now + UNHINTED_LIFE_MS,
  );
  const bounded = boundedDeadline(deadline, until);
  return bounded - now < MIN_HANDLER_BUDGET_MS ? now : bounded;
}
