// Permit2 and the x402 upto proxy on the local facilitator's pretend chain, so the SDK's `upto` facilitator
// (@x402/evm/upto/facilitator) verifies and settles against the store's USDC ledger as it would on Base.
//
// What the pretend contracts do, after x402's `specs/schemes/upto/scheme_upto_evm.md` and the proxy's ABI in
// @x402/evm (x402UptoPermit2Proxy.settle(permit, amount, owner, witness, signature)):
// - The proxy refuses a caller other than the witness's facilitator (UnauthorizedFacilitator), an amount above
//   the signed maximum (AmountExceedsPermitted), a zero recipient or owner, and a payment before validAfter.
// - Permit2's permitWitnessTransferFrom refuses a passed deadline (SignatureExpired), a nonce already used
//   (InvalidNonce) and a signature that does not recover to the owner (InvalidSigner), checked with real ECDSA
//   over the same EIP-712 typed data the buyer signed (domain "Permit2", spender the proxy, the witness).
// - Allowance: on a real chain the buyer approves Permit2 once ("Phase 1: One-Time Gas Approval", Option A:
//   `approve(Permit2)`). The pretend ledger takes that one-time approval as done, for the maximum, for every
//   address: `allowance(owner, Permit2)` is 2^256-1, any other spender's 0. Balances still bind: a transfer
//   above the owner's balance reverts ("ERC20: transfer amount exceeds balance").
// - A settled transfer is a row of local_usdc_transfers whose nonce is `permit2:<nonce>`, so the nonce is spent
//   once and the receipt (with its Transfer log) is read back like an EIP-3009 transfer's.
import type { FacilitatorEvmSigner } from "@x402/evm";
import {
  erc20AllowanceAbi,
  PERMIT2_ADDRESS,
  uptoPermit2WitnessTypes,
  x402UptoPermit2ProxyABI,
  x402UptoPermit2ProxyAddress,
} from "@x402/evm";
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionResult,
  getAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  recoverTypedDataAddress,
} from "viem";
import type { Store } from "../../store/store.ts";
import type { NetworkInfo } from "../shared/networks.ts";
import { permit2NonceKey } from "../shared/upto-payload.ts";
import {
  asAddress,
  asHex,
  asUint,
  delegatedAggregate,
  LedgerRevertError,
  LOCAL_FACILITATOR_ADDRESS,
  MULTICALL3_ADDRESS,
  PRETEND_BYTECODE,
  REVERT,
  serialized,
  tryAggregateWith,
} from "./ledger-signer.ts";

const UINT256_MAX = 2n ** 256n - 1n;
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
const PERMIT2 = getAddress(PERMIT2_ADDRESS);
const UPTO_PROXY = getAddress(x402UptoPermit2ProxyAddress);

interface UptoSettle {
  token: `0x${string}`;
  permitted: bigint;
  nonce: bigint;
  deadline: bigint;
  amount: bigint;
  owner: `0x${string}`;
  to: `0x${string}`;
  facilitator: `0x${string}`;
  validAfter: bigint;
  signature: Hex;
}

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null) throw new LedgerRevertError("bad calldata");
  return value as Record<string, unknown>;
}

/** settle(permit, amount, owner, witness, signature) as viem passes it (decoded or as built by the SDK). */
function parseSettleArgs(args: readonly unknown[] | undefined): UptoSettle {
  if (args?.length !== 5) throw new LedgerRevertError("bad calldata");
  const permit = record(args[0]);
  const permitted = record(permit.permitted);
  const witness = record(args[3]);
  return {
    token: asAddress(permitted.token),
    permitted: asUint(permitted.amount),
    nonce: asUint(permit.nonce),
    deadline: asUint(permit.deadline),
    amount: asUint(args[1]),
    owner: asAddress(args[2]),
    to: asAddress(witness.to),
    facilitator: asAddress(witness.facilitator),
    validAfter: asUint(witness.validAfter),
    signature: asHex(args[4]),
  };
}

/** Deterministic pretend transaction hash of one settlement attempt of a Permit2 authorization. */
function permit2TxHash(network: string, owner: string, nonce: bigint, attempt: number): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "string" }, { type: "address" }, { type: "uint256" }, { type: "uint256" }],
      [`${network}:permit2`, getAddress(owner), nonce, BigInt(attempt)],
    ),
  );
}

/** The network Permit2 and the upto proxy are deployed on, and the signer answering everything else. */
interface Permit2Chain {
  base: FacilitatorEvmSigner;
  store: Store;
  caip2: string;
  chainId: number;
  usdc: `0x${string}`;
  now: () => number;
}

/** The owner who signed the Permit2 witness transfer, or the invalid-signature revert. */
async function recoverPermitOwner(chain: Permit2Chain, s: UptoSettle): Promise<`0x${string}`> {
  try {
    return await recoverTypedDataAddress({
      domain: { name: "Permit2", chainId: chain.chainId, verifyingContract: PERMIT2 },
      types: uptoPermit2WitnessTypes,
      primaryType: "PermitWitnessTransferFrom",
      message: {
        permitted: { token: s.token, amount: s.permitted },
        spender: UPTO_PROXY,
        nonce: s.nonce,
        deadline: s.deadline,
        witness: { to: s.to, facilitator: s.facilitator, validAfter: s.validAfter },
      },
      signature: s.signature,
    });
  } catch {
    throw new LedgerRevertError("InvalidSignature()");
  }
}

/** The proxy's and Permit2's checks, in their order; throws the first revert. */
async function checkSettle(chain: Permit2Chain, s: UptoSettle, caller: `0x${string}`): Promise<void> {
  const { store, caip2 } = chain;
  const t = BigInt(chain.now());
  if (!isAddressEqual(caller, s.facilitator)) throw new LedgerRevertError("UnauthorizedFacilitator()");
  if (s.amount > s.permitted) throw new LedgerRevertError("AmountExceedsPermitted()");
  if (isAddressEqual(s.owner, ZERO_ADDRESS)) throw new LedgerRevertError("InvalidOwner()");
  if (isAddressEqual(s.to, ZERO_ADDRESS)) throw new LedgerRevertError("InvalidDestination()");
  if (t < s.validAfter) throw new LedgerRevertError("PaymentTooEarly()");
  // Permit2.permitWitnessTransferFrom
  if (t > s.deadline) throw new LedgerRevertError(`SignatureExpired(${s.deadline})`);
  if (await store.localUsdc.nonceUsed(caip2, s.owner, permit2NonceKey(s.nonce))) {
    throw new LedgerRevertError("InvalidNonce()");
  }
  const signer = await recoverPermitOwner(chain, s);
  if (!isAddressEqual(signer, s.owner)) throw new LedgerRevertError("InvalidSigner()");
  if (!isAddressEqual(s.token, chain.usdc)) throw new LedgerRevertError("call to a non-contract token");
  if ((await store.localUsdc.balance(caip2, s.owner)) < s.amount) throw new LedgerRevertError(REVERT.balance);
}

async function settleUpto(chain: Permit2Chain, s: UptoSettle, caller: `0x${string}`): Promise<Hex> {
  const { store, caip2 } = chain;
  return serialized(store, caip2, async () => {
    await checkSettle(chain, s, caller);
    let attempt = 0;
    let txHash = permit2TxHash(caip2, s.owner, s.nonce, attempt);
    while ((await store.localUsdc.transferStatus(txHash)) !== undefined) {
      attempt += 1;
      txHash = permit2TxHash(caip2, s.owner, s.nonce, attempt);
    }
    await store.localUsdc.transfer({
      network: caip2,
      payer: s.owner,
      payTo: s.to,
      amount: s.amount,
      nonce: permit2NonceKey(s.nonce),
      txHash,
    });
    return txHash;
  });
}

function allowance(args: readonly unknown[] | undefined): bigint {
  asAddress(args?.[0]);
  return isAddressEqual(asAddress(args?.[1]), PERMIT2) ? UINT256_MAX : 0n;
}

async function readProxy(
  chain: Permit2Chain,
  functionName: string,
  args: readonly unknown[] | undefined,
): Promise<unknown> {
  if (functionName === "PERMIT2") return PERMIT2;
  // A simulation is sent by the facilitator's own account.
  if (functionName === "settle") return checkSettle(chain, parseSettleArgs(args), LOCAL_FACILITATOR_ADDRESS);
  throw new LedgerRevertError(`the local upto proxy has no function ${functionName}`);
}

/** One Multicall3 entry this module answers, or undefined to leave it to the base signer. */
async function aggregateOne(
  chain: Permit2Chain,
  target: unknown,
  callData: unknown,
): Promise<Hex | undefined> {
  const to = asAddress(target);
  const data = asHex(callData);
  if (isAddressEqual(to, UPTO_PROXY)) {
    const decoded = decodeFunctionData({ abi: x402UptoPermit2ProxyABI, data });
    const value = await readProxy(chain, decoded.functionName, decoded.args);
    return decoded.functionName === "settle"
      ? "0x"
      : encodeFunctionResult({
          abi: x402UptoPermit2ProxyABI,
          functionName: decoded.functionName,
          result: value,
        } as Parameters<typeof encodeFunctionResult>[0]);
  }
  if (isAddressEqual(to, chain.usdc) && data.startsWith("0xdd62ed3e")) {
    const decoded = decodeFunctionData({ abi: erc20AllowanceAbi, data });
    return encodeFunctionResult({
      abi: erc20AllowanceAbi,
      functionName: "allowance",
      result: allowance(decoded.args),
    });
  }
  return undefined;
}

/** One Multicall3 entry: answered here when it is for the proxy or an allowance, else by the base signer. */
async function aggregateCall(
  chain: Permit2Chain,
  call: { target?: unknown; callData?: unknown },
): Promise<{ success: boolean; returnData: Hex }> {
  const own = await aggregateOne(chain, call?.target, call?.callData);
  if (own !== undefined) return { success: true, returnData: own };
  return delegatedAggregate(chain.base, call);
}

/**
 * The ledger signer with Permit2 and the upto proxy deployed: calls to them are answered here, everything else
 * (USDC, Multicall3 over USDC, receipts) by the base signer.
 */
export function withPermit2(
  base: FacilitatorEvmSigner,
  store: Store,
  network: NetworkInfo,
  now: () => number = () => Math.floor(Date.now() / 1000),
): FacilitatorEvmSigner {
  const usdc = getAddress(network.usdc.address);
  const chain: Permit2Chain = {
    base,
    store,
    caip2: network.caip2,
    chainId: network.chainId as number,
    usdc,
    now,
  };
  return {
    ...base,
    getAddresses: () => base.getAddresses(),

    async getCode(params) {
      if (isAddressEqual(params.address, PERMIT2) || isAddressEqual(params.address, UPTO_PROXY)) {
        return PRETEND_BYTECODE;
      }
      return base.getCode(params);
    },

    async readContract(params) {
      const { address, functionName, args } = params;
      if (isAddressEqual(address, MULTICALL3_ADDRESS) && functionName === "tryAggregate")
        return tryAggregateWith(args, (call) => aggregateCall(chain, call));
      if (isAddressEqual(address, UPTO_PROXY)) return readProxy(chain, functionName, args);
      if (isAddressEqual(address, usdc) && functionName === "allowance") return allowance(args);
      return base.readContract(params);
    },

    async writeContract(params) {
      if (!isAddressEqual(params.address, UPTO_PROXY)) return base.writeContract(params);
      if (params.functionName !== "settle") {
        throw new LedgerRevertError(`the local upto proxy cannot execute ${params.functionName}`);
      }
      return settleUpto(chain, parseSettleArgs(params.args), LOCAL_FACILITATOR_ADDRESS);
    },
  };
}
