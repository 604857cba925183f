// EIP-3009 settlements on an EVM chain, decided by the token contract: authorizationState(authorizer, nonce)
// is true once transferWithAuthorization spent the nonce, and the AuthorizationUsed(authorizer, nonce) event
// names the transaction. Both are in the EIP-3009 text (eips.ethereum.org/EIPS/eip-3009) and in Circle's
// FiatTokenV2 (USDC), which Base's USDC runs. upto payments (Permit2 witness transfers) are decided by Permit2's
// nonce bitmap instead.
import { PERMIT2_ADDRESS } from "@x402/evm";
import { createPublicClient, http, parseAbi, parseAbiItem } from "viem";
import { permit2AuthorizationOf } from "../../shared/upto-payload.ts";
import {
  ChainUnreachableError,
  type ChainVerdict,
  rpcErrorText,
  type SettlementChain,
  type SettlementLookup,
} from "./verdict.ts";

const EIP3009_ABI = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
]);
const AUTHORIZATION_USED = parseAbiItem(
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
);
/** Public endpoints refuse wide log ranges; this many blocks from the attempt covers hours on Base. */
const MAX_LOG_SPAN = 10_000n;
/** The search starts this long before the attempt (clock differences between us and the chain). */
const SEARCH_LEAD_SEC = 120n;

interface EvmAuthorization {
  from: `0x${string}`;
  nonce: `0x${string}`;
  validBefore: bigint;
}

export function eip3009Authorization(lookup: SettlementLookup): EvmAuthorization | undefined {
  const auth = (lookup.payload.payload as { authorization?: Record<string, unknown> } | undefined)
    ?.authorization;
  if (!auth || typeof auth.from !== "string" || typeof auth.nonce !== "string") return undefined;
  if (typeof auth.validBefore !== "string" || !/^\d+$/.test(auth.validBefore)) return undefined;
  return {
    from: auth.from as `0x${string}`,
    nonce: auth.nonce as `0x${string}`,
    validBefore: BigInt(auth.validBefore),
  };
}

/**
 * An upto payment's Permit2 authorization as the chain check reads it: its owner, nonce and deadline (Permit2
 * refuses it after the deadline, so unspent then is final).
 */
export function permit2Spend(
  lookup: SettlementLookup,
): (EvmAuthorization & { permit2Nonce: bigint }) | undefined {
  const auth = permit2AuthorizationOf(lookup.payload.payload);
  if (!auth || typeof auth.from !== "string") return undefined;
  if (!/^\d+$/.test(String(auth.nonce)) || !/^\d+$/.test(String(auth.deadline))) return undefined;
  return {
    from: auth.from as `0x${string}`,
    nonce: auth.nonce as `0x${string}`,
    permit2Nonce: BigInt(auth.nonce),
    // Settlement is refused once block.timestamp > deadline: the first second it cannot happen.
    validBefore: BigInt(auth.deadline) + 1n,
  };
}

/**
 * Permit2's unordered nonces (Uniswap permit2 SignatureTransfer.sol): bit `nonce & 0xff` of
 * nonceBitmap(owner, nonce >> 8) is set once a permit with that nonce is spent.
 */
const PERMIT2_ABI = parseAbi(["function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)"]);

export function evmSettlementChain(options: {
  rpcUrl: string;
  timeoutMs: number;
  /** Average seconds per block, to turn the attempt's time into a block to search logs from. */
  blockTimeSec: number;
}): SettlementChain {
  const client = createPublicClient({
    transport: http(options.rpcUrl, { timeout: options.timeoutMs, retryCount: 1 }),
  });

  async function findTransaction(
    asset: `0x${string}`,
    auth: EvmAuthorization,
    latest: { number: bigint; timestamp: bigint },
    attemptedAt: Date,
  ): Promise<string | null> {
    const secondsBack = latest.timestamp - BigInt(Math.floor(attemptedAt.getTime() / 1000)) + SEARCH_LEAD_SEC;
    const blocksBack = secondsBack > 0n ? secondsBack / BigInt(options.blockTimeSec) + 1n : 1n;
    const fromBlock = latest.number > blocksBack ? latest.number - blocksBack : 0n;
    const toBlock = fromBlock + MAX_LOG_SPAN < latest.number ? fromBlock + MAX_LOG_SPAN : latest.number;
    try {
      const logs = await client.getLogs({
        address: asset,
        event: AUTHORIZATION_USED,
        args: { authorizer: auth.from, nonce: auth.nonce },
        fromBlock,
        toBlock,
      });
      return logs[0]?.transactionHash ?? null;
    } catch {
      return null; // the spend is certain; only its transaction could not be looked up
    }
  }

  return {
    async check(lookup: SettlementLookup): Promise<ChainVerdict> {
      const permit2 = permit2Spend(lookup);
      const auth = eip3009Authorization(lookup) ?? permit2;
      if (!auth)
        throw new ChainUnreachableError(
          "the payment is neither an EIP-3009 nor a Permit2 authorization; check by hand",
        );
      const asset = lookup.requirements.asset as `0x${string}`;
      let latest: { number: bigint; timestamp: bigint };
      let used: boolean;
      try {
        // State read at a block whose time we know: unspent at a block past validBefore is final, since
        // the contract refuses the authorization in every later block.
        const block = await client.getBlock({ blockTag: "latest" });
        if (block.number === null) throw new Error("latest block has no number");
        latest = { number: block.number, timestamp: block.timestamp };
        if (permit2) {
          const word = await client.readContract({
            address: PERMIT2_ADDRESS,
            abi: PERMIT2_ABI,
            functionName: "nonceBitmap",
            args: [permit2.from, permit2.permit2Nonce >> 8n],
            blockNumber: latest.number,
          });
          used = ((word >> (permit2.permit2Nonce & 0xffn)) & 1n) === 1n;
        } else {
          used = await client.readContract({
            address: asset,
            abi: EIP3009_ABI,
            functionName: "authorizationState",
            args: [auth.from, auth.nonce],
            blockNumber: latest.number,
          });
        }
      } catch (error) {
        throw new ChainUnreachableError(rpcErrorText(options.rpcUrl, error));
      }
      if (used) {
        // Permit2 logs no event naming the nonce: its transaction is known only if the facilitator gave it.
        const transaction = permit2
          ? (lookup.transaction ?? null)
          : (lookup.transaction ?? (await findTransaction(asset, auth, latest, lookup.attemptedAt)));
        return { state: "spent", transaction };
      }
      if (latest.timestamp >= auth.validBefore) return { state: "expired" };
      return { state: "open", retryAfterSec: Math.min(30, Number(auth.validBefore - latest.timestamp) + 2) };
    },
  };
}
