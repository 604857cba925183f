// USDC's EIP-3009 authorizations as EIP-712 typed data: the fields a transfer or receive authorization signs.

/** The fields USDC's EIP-3009 authorizations sign (transfer and receive alike). */
export const EIP3009_AUTHORIZATION_FIELDS = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

/** The typed-data `types` of a TransferWithAuthorization (the exact scheme's EVM payment). */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: EIP3009_AUTHORIZATION_FIELDS,
} as const;
