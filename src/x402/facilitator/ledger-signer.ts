// A FacilitatorEvmSigner whose "chain" is the store's pretend USDC ledger: the x402 SDK verifies and
// settles against it exactly as against a real USDC (FiatToken v2) contract, but no real money moves.
import type { FacilitatorEvmSigner } from "@x402/evm";
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeErrorResult,
  encodeEventTopics,
  encodeFunctionResult,
  getAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  type Log,
  parseAbi,
  recoverTypedDataAddress,
  serializeSignature,
  verifyTypedData,
} from "viem";
import { errorText } from "../../json.ts";
import type { Store } from "../../store/store.ts";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "../shared/eip3009.ts";
import type { NetworkInfo } from "../shared/networks.ts";

/** The address the local facilitator pretends to settle from; it holds no key and pays no gas. */
export const LOCAL_FACILITATOR_ADDRESS = getAddress(`0x${"fac1".repeat(10)}`);

/** Multicall3 lives at this address on every EVM chain; the SDK diagnoses failed simulations through it. */
export const MULTICALL3_ADDRESS = getAddress("0xcA11bde05977b3631167028862bE2a173976CA11");

/** Stand-in runtime bytecode: only its being non-empty matters (the SDK's "asset is a contract" check). */
export const PRETEND_BYTECODE: Hex = "0x6080604052348015600f57600080fd5b50";

/** The part of the USDC (ERC-20 + EIP-3009) interface the ledger answers. */
export const LEDGER_USDC_ABI = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function balanceOf(address account) view returns (uint256)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function symbol() view returns (string)",
  "function decimals() view returns (uint8)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
]);

const TRANSFER_EVENT_ABI = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

const REVERT_ABI = [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }] as const;

/** One Multicall3 entry that a pretend contract does not answer, asked of the base signer. */
export async function delegatedAggregate(
  base: FacilitatorEvmSigner,
  call: { target?: unknown; callData?: unknown },
): Promise<{ success: boolean; returnData: Hex }> {
  const [delegated] = (await base.readContract({
    address: MULTICALL3_ADDRESS,
    abi: [],
    functionName: "tryAggregate",
    args: [false, [call]],
  })) as { success: boolean; returnData: Hex }[];
  return delegated ?? { success: false, returnData: "0x" };
}

// secp256k1 group order / 2: FiatToken's ECRecover rejects malleable (high-s) signatures.
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const UINT256_MAX = 2n ** 256n - 1n;

/**
 * A contract call that reverted. The messages are FiatToken v2's own revert strings, which the SDK's
 * `parseEip3009TransferError` maps onto its precise reasons.
 */
export class LedgerRevertError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`execution reverted: ${reason}`);
    this.name = "LedgerRevertError";
    this.reason = reason;
  }
}

/** A Multicall3 call that reverted: its reason encoded as Error(string), as a chain returns it. */
function revertedCall(error: unknown): { success: false; returnData: Hex } {
  const reason = error instanceof LedgerRevertError ? error.reason : "bad calldata";
  return {
    success: false,
    returnData: encodeErrorResult({ abi: REVERT_ABI, errorName: "Error", args: [reason] }),
  };
}

export const REVERT = {
  notYetValid: "FiatTokenV2: authorization is not yet valid",
  expired: "FiatTokenV2: authorization is expired",
  used: "FiatTokenV2: authorization is used or canceled",
  invalidSignature: "FiatTokenV2: invalid signature",
  highS: "ECRecover: invalid signature 's' value",
  balance: "ERC20: transfer amount exceeds balance",
  zeroRecipient: "ERC20: transfer to the zero address",
} as const;

interface Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

interface LedgerSignerOptions {
  /** Seconds since the epoch used for the validAfter/validBefore checks; defaults to the wall clock. */
  now?: () => number;
}

// One queue per store and network, so the check-then-transfer of concurrent settlements cannot interleave.
const queues = new WeakMap<Store, Map<string, Promise<unknown>>>();

export function serialized<T>(store: Store, network: string, work: () => Promise<T>): Promise<T> {
  let byNetwork = queues.get(store);
  if (!byNetwork) {
    byNetwork = new Map();
    queues.set(store, byNetwork);
  }
  const previous = byNetwork.get(network) ?? Promise.resolve();
  const next = previous.then(work, work);
  byNetwork.set(
    network,
    next.catch(() => undefined),
  );
  return next;
}

export function asAddress(value: unknown): `0x${string}` {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value))
    throw new LedgerRevertError("bad calldata");
  return getAddress(value);
}

export function asUint(value: unknown): bigint {
  let n: bigint;
  if (typeof value === "bigint") n = value;
  else if (typeof value === "number" && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === "string" && /^\d+$/.test(value)) n = BigInt(value);
  else throw new LedgerRevertError("bad calldata");
  if (n < 0n || n > UINT256_MAX) throw new LedgerRevertError("bad calldata");
  return n;
}

function asBytes32(value: unknown): Hex {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value))
    throw new LedgerRevertError("bad calldata");
  return value.toLowerCase() as Hex;
}

export function asHex(value: unknown): Hex {
  if (typeof value !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(value))
    throw new LedgerRevertError("bad calldata");
  return value as Hex;
}

/** Reads transferWithAuthorization arguments in either overload: (…, v, r, s) or (…, bytes signature). */
function parseTransferArgs(args: readonly unknown[] | undefined): Authorization {
  if (!args || (args.length !== 9 && args.length !== 7)) throw new LedgerRevertError("bad calldata");
  const [from, to, value, validAfter, validBefore, nonce] = args;
  let signature: Hex;
  if (args.length === 9) {
    const v = Number(asUint(args[6]));
    const yParity = v >= 27 ? v - 27 : v;
    if (yParity !== 0 && yParity !== 1) throw new LedgerRevertError(REVERT.invalidSignature);
    signature = serializeSignature({ r: asBytes32(args[7]), s: asBytes32(args[8]), yParity });
  } else {
    signature = asHex(args[6]);
  }
  return {
    from: asAddress(from),
    to: asAddress(to),
    value: asUint(value),
    validAfter: asUint(validAfter),
    validBefore: asUint(validBefore),
    nonce: asBytes32(nonce),
    signature,
  };
}

/** Deterministic pretend transaction hash of one settlement attempt of an authorization. */
function ledgerTxHash(network: string, payer: string, nonce: string, attempt = 0): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "string" }, { type: "address" }, { type: "bytes32" }, { type: "uint256" }],
      [network, getAddress(payer), nonce.toLowerCase() as Hex, BigInt(attempt)],
    ),
  );
}

type CallResult = { success: boolean; returnData: Hex };
type AggregateCall = { target?: unknown; callData?: unknown };

/**
 * Multicall3's tryAggregate(requireSuccess, calls) with each call answered by `answer`: a call that throws
 * becomes a reverted entry, and with requireSuccess the first failure reverts the whole aggregate.
 */
export async function tryAggregateWith(
  args: readonly unknown[] | undefined,
  answer: (call: AggregateCall) => Promise<CallResult>,
): Promise<CallResult[]> {
  const requireSuccess = args?.[0] === true;
  const calls = args?.[1];
  if (!Array.isArray(calls)) throw new LedgerRevertError("bad calldata");
  const results: CallResult[] = [];
  for (const call of calls as AggregateCall[]) {
    let result: CallResult;
    try {
      result = await answer(call);
    } catch (error) {
      result = revertedCall(error);
    }
    if (requireSuccess && !result.success) throw new LedgerRevertError("Multicall3: call failed");
    results.push(result);
  }
  return results;
}

/** One EVM network's pretend USDC contract: what every ledger step needs to know about it. */
interface LedgerChain {
  store: Store;
  network: NetworkInfo;
  caip2: string;
  usdc: `0x${string}`;
  eip712: { name: string; version: string };
  chainId: number;
  now: () => number;
}

function ledgerChain(store: Store, network: NetworkInfo, options: LedgerSignerOptions): LedgerChain {
  if (network.kind !== "evm" || network.chainId === undefined) {
    throw new Error(`the local USDC ledger runs on EVM networks only, not ${network.name}`);
  }
  const eip712 = network.usdc.eip712;
  if (!eip712) throw new Error(`network ${network.name} has no EIP-712 domain for its USDC`);
  return {
    store,
    network,
    caip2: network.caip2,
    usdc: getAddress(network.usdc.address),
    eip712,
    chainId: network.chainId,
    now: options.now ?? (() => Math.floor(Date.now() / 1000)),
  };
}

/** The address that signed the authorization, or the invalid-signature revert. */
async function recoverAuthorizer(chain: LedgerChain, auth: Authorization): Promise<`0x${string}`> {
  try {
    return await recoverTypedDataAddress({
      domain: { ...chain.eip712, chainId: chain.chainId, verifyingContract: chain.usdc },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: "TransferWithAuthorization",
      message: {
        from: auth.from,
        to: auth.to,
        value: auth.value,
        validAfter: auth.validAfter,
        validBefore: auth.validBefore,
        nonce: auth.nonce,
      },
      signature: auth.signature,
    });
  } catch {
    throw new LedgerRevertError(REVERT.invalidSignature);
  }
}

/** Runs FiatToken's checks for transferWithAuthorization, in its order; throws the first revert. */
async function checkTransfer(chain: LedgerChain, auth: Authorization): Promise<void> {
  const { store, caip2 } = chain;
  const t = BigInt(chain.now());
  if (!(t > auth.validAfter)) throw new LedgerRevertError(REVERT.notYetValid);
  if (!(t < auth.validBefore)) throw new LedgerRevertError(REVERT.expired);
  if (await store.localUsdc.nonceUsed(caip2, auth.from, auth.nonce)) throw new LedgerRevertError(REVERT.used);
  if (auth.signature.length !== 132) throw new LedgerRevertError(REVERT.invalidSignature);
  if (BigInt(`0x${auth.signature.slice(66, 130)}`) > SECP256K1_HALF_N)
    throw new LedgerRevertError(REVERT.highS);
  const signer = await recoverAuthorizer(chain, auth);
  if (!isAddressEqual(signer, auth.from)) throw new LedgerRevertError(REVERT.invalidSignature);
  if (isAddressEqual(auth.to, "0x0000000000000000000000000000000000000000")) {
    throw new LedgerRevertError(REVERT.zeroRecipient);
  }
  if ((await store.localUsdc.balance(caip2, auth.from)) < auth.value)
    throw new LedgerRevertError(REVERT.balance);
}

/** One read-only call to the pretend USDC contract. */
async function callUsdc(
  chain: LedgerChain,
  functionName: string,
  args: readonly unknown[] | undefined,
): Promise<unknown> {
  const { store, caip2 } = chain;
  switch (functionName) {
    case "balanceOf":
      return store.localUsdc.balance(caip2, asAddress(args?.[0]));
    case "name":
      return chain.eip712.name;
    case "version":
      return chain.eip712.version;
    case "symbol":
      return "USDC";
    case "decimals":
      return 6;
    case "authorizationState":
      return store.localUsdc.nonceUsed(caip2, asAddress(args?.[0]), asBytes32(args?.[1]));
    case "transferWithAuthorization":
      await checkTransfer(chain, parseTransferArgs(args));
      return undefined;
    default:
      throw new LedgerRevertError(`the local USDC ledger has no function ${functionName}`);
  }
}

/** One Multicall3 entry addressed to the pretend USDC contract, its result ABI-encoded. */
async function aggregateUsdcCall(chain: LedgerChain, call: AggregateCall): Promise<CallResult> {
  if (!isAddressEqual(asAddress(call?.target), chain.usdc))
    throw new LedgerRevertError("call to a non-contract");
  const decoded = decodeFunctionData({ abi: LEDGER_USDC_ABI, data: asHex(call?.callData) });
  const value = await callUsdc(chain, decoded.functionName, decoded.args);
  const returnData =
    decoded.functionName === "transferWithAuthorization"
      ? "0x"
      : encodeFunctionResult({
          abi: LEDGER_USDC_ABI,
          functionName: decoded.functionName,
          result: value,
        } as Parameters<typeof encodeFunctionResult>[0]);
  return { success: true, returnData };
}

async function settleTransfer(chain: LedgerChain, auth: Authorization): Promise<Hex> {
  const { store, caip2 } = chain;
  return serialized(store, caip2, async () => {
    await checkTransfer(chain, auth);
    let attempt = 0;
    let txHash = ledgerTxHash(caip2, auth.from, auth.nonce, attempt);
    while ((await store.localUsdc.transferStatus(txHash)) !== undefined) {
      attempt += 1;
      txHash = ledgerTxHash(caip2, auth.from, auth.nonce, attempt);
    }
    try {
      await store.localUsdc.transfer({
        network: caip2,
        payer: auth.from,
        payTo: auth.to,
        amount: auth.value,
        nonce: auth.nonce,
        txHash,
      });
    } catch (error) {
      // Another process sharing the database recorded the same hash first.
      throw new LedgerRevertError(`${REVERT.used} (${errorText(error)})`);
    }
    return txHash;
  });
}

async function receipt(chain: LedgerChain, hash: Hex): Promise<{ status: string; logs: Log[] }> {
  const row = await chain.store.db
    .selectFrom("local_usdc_transfers")
    .select(["status", "payer", "pay_to", "amount", "network"])
    .where("tx_hash", "=", hash)
    .executeTakeFirst();
  if (!row || row.network !== chain.caip2)
    throw new Error(`transaction ${hash} not found on the local ${chain.network.name} ledger`);
  if (row.status !== "success") return { status: "reverted", logs: [] };
  const topics = encodeEventTopics({
    abi: TRANSFER_EVENT_ABI,
    eventName: "Transfer",
    args: { from: getAddress(row.payer), to: getAddress(row.pay_to) },
  });
  const log: Log = {
    address: chain.usdc,
    blockHash: keccak256(hash),
    blockNumber: 1n,
    data: encodeAbiParameters([{ type: "uint256" }], [BigInt(row.amount)]),
    logIndex: 0,
    transactionHash: hash,
    transactionIndex: 0,
    removed: false,
    topics: topics as [Hex, ...Hex[]],
  };
  return { status: "success", logs: [log] };
}

async function verifyTypedDataOrFalse(params: Parameters<typeof verifyTypedData>[0]): Promise<boolean> {
  try {
    return await verifyTypedData(params);
  } catch {
    return false;
  }
}

/**
 * A FacilitatorEvmSigner backed by the store's local USDC ledger for one EVM network.
 *
 * - `getCode`: pretend bytecode for the network's USDC and Multicall3, `0x` for everything else (so payers
 *   are EOAs and the SDK recovers their EIP-712 signatures locally).
 * - `readContract` on USDC: `balanceOf`, `name`, `version`, `symbol`, `decimals`, `authorizationState`, and
 *   `transferWithAuthorization` as a simulation that throws FiatToken's revert string when it would fail.
 *   On Multicall3: `tryAggregate` over USDC calls (the SDK's failure diagnosis).
 * - `writeContract(transferWithAuthorization)`: checks like the contract does, then moves the amount.
 * - `waitForTransactionReceipt`: the recorded status, with an ERC-20 Transfer log on success.
 * - `verifyTypedData`: real ECDSA recovery. `sendTransaction` is not supported (no smart-wallet deploys).
 */
export function createLedgerSigner(
  store: Store,
  network: NetworkInfo,
  options: LedgerSignerOptions = {},
): FacilitatorEvmSigner {
  const chain = ledgerChain(store, network, options);
  const { usdc } = chain;
  return {
    getAddresses: () => [LOCAL_FACILITATOR_ADDRESS],

    async getCode({ address }) {
      return isAddressEqual(address, usdc) || isAddressEqual(address, MULTICALL3_ADDRESS)
        ? PRETEND_BYTECODE
        : "0x";
    },

    async readContract({ address, functionName, args }) {
      if (isAddressEqual(address, MULTICALL3_ADDRESS) && functionName === "tryAggregate")
        return tryAggregateWith(args, (call) => aggregateUsdcCall(chain, call));
      if (!isAddressEqual(address, usdc))
        throw new LedgerRevertError(`no contract at ${address} on the local ledger`);
      return callUsdc(chain, functionName, args);
    },

    async verifyTypedData(params) {
      return verifyTypedDataOrFalse(params as Parameters<typeof verifyTypedData>[0]);
    },

    async writeContract({ address, functionName, args }) {
      if (!isAddressEqual(address, usdc))
        throw new LedgerRevertError(`no contract at ${address} on the local ledger`);
      if (functionName !== "transferWithAuthorization") {
        throw new LedgerRevertError(`the local USDC ledger cannot execute ${functionName}`);
      }
      return settleTransfer(chain, parseTransferArgs(args));
    },

    async sendTransaction() {
      throw new Error("the local facilitator does not send raw transactions (no smart-wallet deployments)");
    },

    async waitForTransactionReceipt({ hash }) {
      return receipt(chain, hash);
    },
  };
}
