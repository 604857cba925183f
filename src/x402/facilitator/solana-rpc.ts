// A pretend Solana JSON-RPC 2.0 node over the local ledger, for buyers (an unmodified @x402/svm client asks
// for the USDC mint and a recent blockhash) and for paycall's own settlement checks (signature statuses,
// transactions, blockhash validity). Reads only: transactions reach the ledger through x402 settle.
import { getBase64Decoder } from "@solana/kit";
import { isObject } from "../../json.ts";
import type { Store } from "../../store/store.ts";
import type { NetworkInfo } from "../shared/networks.ts";
import { type JsonRpc, jsonRpcOver, RpcError } from "./json-rpc.ts";
import {
  blockHeightAt,
  blockhashProblem,
  type Clock,
  latestBlockhash,
  slotOfHeight,
  timeOfHeight,
} from "./solana-blocks.ts";
import { TOKEN_PROGRAM, USDC_DECIMALS } from "./solana-transaction.ts";

export { inProcessFetch } from "./json-rpc.ts";

const SIGNATURES_LIMIT = 1000;
const MINT_SUPPLY = 10n ** 15n;

type Params = unknown[];
type Json = unknown;

/** SPL Token's 82-byte Mint layout: no mint or freeze authority, a fixed supply, 6 decimals, initialized. */
function mintAccountData(): string {
  const data = new Uint8Array(82);
  const view = new DataView(data.buffer);
  view.setBigUint64(36, MINT_SUPPLY, true);
  data[44] = USDC_DECIMALS;
  data[45] = 1;
  return getBase64Decoder().decode(data);
}

function stringParam(params: Params, index: number, name: string): string {
  const value = params[index];
  if (typeof value !== "string" || value === "")
    throw new RpcError(-32602, `Invalid params: ${name} must be a string`);
  return value;
}

function slotAt(createdAt: string): number {
  return slotOfHeight(blockHeightAt(Date.parse(createdAt)));
}

/** The methods, by name. */
function methods(
  store: Store,
  network: NetworkInfo,
  now: Clock,
): Record<string, (params: Params) => Promise<Json>> {
  const caip2 = network.caip2;
  const context = () => ({ slot: slotOfHeight(blockHeightAt(now())), apiVersion: "2.2.0" });
  const status = (row: { status: string; created_at: string }) => ({
    slot: slotAt(row.created_at),
    confirmations: null,
    err: row.status === "success" ? null : { InstructionError: [2, { Custom: 1 }] },
    status: row.status === "success" ? { Ok: null } : { Err: { InstructionError: [2, { Custom: 1 }] } },
    confirmationStatus: "finalized",
  });
  return {
    getHealth: async () => "ok",
    getVersion: async () => ({ "solana-core": "2.2.0", "feature-set": 0 }),
    getSlot: async () => slotOfHeight(blockHeightAt(now())),
    getBlockHeight: async () => blockHeightAt(now()),
    getLatestBlockhash: async () => {
      const { blockhash, lastValidBlockHeight } = latestBlockhash(caip2, now());
      return { context: context(), value: { blockhash, lastValidBlockHeight } };
    },
    isBlockhashValid: async (params) => ({
      context: context(),
      value: blockhashProblem(caip2, stringParam(params, 0, "blockhash"), now()) === undefined,
    }),
    getAccountInfo: async (params) => {
      const address = stringParam(params, 0, "address");
      if (address !== network.usdc.address) return { context: context(), value: null };
      const value = {
        data: [mintAccountData(), "base64"],
        executable: false,
        lamports: 1_461_600,
        owner: TOKEN_PROGRAM,
        rentEpoch: 0,
        space: 82,
      };
      return { context: context(), value };
    },
    getSignatureStatuses: async (params) => {
      const signatures = params[0];
      if (
        !Array.isArray(signatures) ||
        signatures.length > 256 ||
        signatures.some((s) => typeof s !== "string")
      )
        throw new RpcError(-32602, "Invalid params: signatures must be an array of up to 256 strings");
      const rows = await Promise.all(signatures.map((s: string) => store.localUsdc.transferRow(caip2, s)));
      return { context: context(), value: rows.map((row) => (row ? status(row) : null)) };
    },
    getTransaction: async (params) => {
      const row = await store.localUsdc.transferRow(caip2, stringParam(params, 0, "signature"));
      if (!row) return null;
      return {
        slot: slotAt(row.created_at),
        blockTime: Math.floor(Date.parse(row.created_at) / 1000),
        meta: { err: status(row).err, fee: 5000, status: status(row).status },
        transaction: {
          signatures: [row.tx_hash, row.nonce],
          message: { accountKeys: [row.payer, row.pay_to] },
        },
        version: 0,
      };
    },
    getSignaturesForAddress: async (params) => {
      const address = stringParam(params, 0, "address");
      const options = isObject(params[1]) ? params[1] : {};
      const limit = Number.isInteger(options.limit)
        ? Math.min(Math.max(1, options.limit as number), SIGNATURES_LIMIT)
        : SIGNATURES_LIMIT;
      const rows = await store.localUsdc.transfersOf(caip2, address, limit);
      return rows.map((row) => ({
        signature: row.tx_hash,
        slot: slotAt(row.created_at),
        err: status(row).err,
        memo: null,
        blockTime: Math.floor(Date.parse(row.created_at) / 1000),
        confirmationStatus: "finalized",
      }));
    },
    getBlockTime: async (params) => {
      const slot = params[0];
      if (!Number.isSafeInteger(slot)) throw new RpcError(-32602, "Invalid params: slot must be an integer");
      return Math.floor(timeOfHeight((slot as number) - slotOfHeight(0)) / 1000);
    },
  };
}

export type SolanaRpc = JsonRpc;

/** JSON-RPC 2.0 over the methods above. */
export function createSolanaRpc(store: Store, network: NetworkInfo, now: Clock = Date.now): SolanaRpc {
  return jsonRpcOver(methods(store, network, now));
}
