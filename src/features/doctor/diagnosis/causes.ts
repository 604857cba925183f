// The catalogue of payment-failure causes. Each cause has one canonical code, the side at fault, a fix, and
// the names the x402 spec (v1, v2), the TypeScript/Go/Python SDKs and hosted facilitators use for it
// (and the failures sellers were seen to cause in the wild). Checkup problems use the same codes.

export type Side = "client" | "wallet" | "network" | "seller" | "facilitator";

export interface Cause {
  code: string;
  title: string;
  side: Side;
  fix: string;
  /** The failure as sellers were seen to cause it in the wild, where it was. */
  catalogueId?: string;
  /** Reason strings that mean this cause (compared case-insensitively). */
  aliases?: string[];
  /** Reason-string prefixes that mean this cause (families such as invalid_exact_svm_smart_wallet_*). */
  prefixes?: string[];
  /** Phrases in free-text errors (exceptions, HTML, log lines) that mean this cause. */
  patterns?: RegExp[];
}

export const CAUSES: Cause[] = [
  // The seller's challenge and endpoint (also found by /v1/doctor/checkup).
  {
    code: "challenge_missing",
    title: "The 402 carries no readable x402 challenge",
    side: "seller",
    catalogueId: "H06",
    fix: "Send the payment request as standard base64 JSON in the PAYMENT-REQUIRED header of the 402 (a JSON body may mirror it).",
    patterns: [
      /failed to parse payment requirements/i,
      /invalid payment required response/i,
      /no payment-required header/i,
    ],
  },
  {
    code: "challenge_base64url",
    title: "PAYMENT-REQUIRED is URL-safe base64",
    side: "seller",
    catalogueId: "H07",
    fix: "Encode the header with standard base64 (+ and /, = padding); the reference clients reject base64url.",
    patterns: [/base64url|url-safe base64/i],
  },
  {
    code: "challenge_v1_only",
    title: "The seller answers with a v1 body-style 402",
    side: "seller",
    catalogueId: "H10",
    fix: "Serve x402 v2: the PAYMENT-REQUIRED header with x402Version 2, CAIP-2 networks and `amount` (a v1 body may stay for old clients).",
    patterns: [/maxAmountRequired/],
  },
  {
    code: "challenge_version_unsupported",
    title: "The challenge names an x402 version other than 2",
    side: "seller",
    fix: "Set x402Version to 2 in the PAYMENT-REQUIRED header.",
  },
  {
    code: "header_body_mismatch",
    title: "The 402 header and body offer different terms",
    side: "seller",
    catalogueId: "H10",
    fix: "Build the body's accepts from the same requirements as the header, or leave them out of the body.",
  },
  {
    code: "host_platform_402",
    title: "A hosting platform's 402, not an x402 challenge",
    side: "seller",
    catalogueId: "H08",
    fix: "The host answers 402 for its own reason (for example a disabled deployment); re-enable the deployment.",
    patterns: [/DEPLOYMENT_DISABLED/, /deployment (has been )?disabled/i],
  },
  {
    code: "accepts_empty",
    title: "The challenge lists no payment option",
    side: "seller",
    fix: "List at least one payment option in accepts (scheme exact, a CAIP-2 network, USDC, an atomic amount, payTo).",
  },
  {
    code: "scheme_unsupported",
    title: "A payment scheme the client or facilitator does not support",
    side: "seller",
    fix: "Offer the exact scheme, and only schemes your facilitator lists in GET /supported.",
    aliases: ["unsupported_scheme", "missing_scheme"],
  },
  {
    code: "legacy_network_name",
    title: "A v1 network name in a v2 challenge",
    side: "seller",
    catalogueId: "S01",
    fix: "Name networks in CAIP-2: eip155:8453 for Base, solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp for Solana.",
    patterns: [/legacy network name/i],
  },
  {
    code: "network_invalid",
    title: "The network is not a CAIP-2 identifier",
    side: "seller",
    fix: "Write the network as namespace:reference, e.g. eip155:8453.",
  },
  {
    code: "asset_wrong_network",
    title: "The asset is not a token on the declared network",
    side: "seller",
    catalogueId: "S02",
    fix: "Use the USDC contract of the declared network (Base: 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913).",
    aliases: ["asset_not_deployed_contract"],
  },
  {
    code: "asset_not_usdc",
    title: "The asset is not the network's USDC",
    side: "seller",
    fix: "Most x402 clients pay USDC only; offer the network's USDC as well, or make sure your buyers hold this token.",
  },
  {
    code: "amount_not_atomic",
    title: "The amount is not an atomic integer string",
    side: "seller",
    catalogueId: "S03",
    fix: 'Write amount in the token\'s smallest unit as a string of digits: "10000" is 0.01 USDC.',
  },
  {
    code: "amount_suspicious",
    title: "The amount looks mis-scaled",
    side: "seller",
    catalogueId: "S04",
    fix: "Scale by the token's decimals (USDC has 6): 0.01 USD is 10000, not 10000000000000000.",
  },
  {
    code: "eip712_domain_missing",
    title: "extra.name / extra.version (the token's EIP-712 domain) are missing",
    side: "seller",
    catalogueId: "S06",
    fix: 'Add the token\'s EIP-712 domain to extra: for USDC on Base {"name":"USD Coin","version":"2"}.',
    aliases: ["invalid_exact_evm_missing_eip712_domain"],
    patterns: [/eip-?712 domain (parameters )?(are |is )?(missing|required)/i],
  },
  {
    code: "eip712_domain_mismatch",
    title: "extra.name / extra.version differ from the token's EIP-712 domain",
    side: "seller",
    catalogueId: "S05",
    fix: 'Copy name and version from the token contract: USDC on Base is "USD Coin" version "2", on Base Sepolia "USDC" version "2".',
    aliases: ["invalid_exact_evm_token_name_mismatch", "invalid_exact_evm_token_version_mismatch"],
  },
  {
    code: "pay_to_invalid",
    title: "payTo is not a valid receiving address for the network",
    side: "seller",
    catalogueId: "S07",
    fix: "Use a checksummed 20-byte address on EVM networks (not zero, not the token contract) or a base58 account on Solana.",
  },
  {
    code: "eip3009_not_supported",
    title: "The token cannot be paid with an EIP-3009 authorization",
    side: "seller",
    catalogueId: "S08",
    fix: "Offer USDC (EIP-3009) or declare assetTransferMethod permit2 for this token.",
    aliases: ["invalid_exact_evm_eip3009_not_supported", "unsupported_asset_transfer_method"],
  },
  {
    code: "max_timeout_out_of_range",
    title: "maxTimeoutSeconds is missing or outside 30 to 3600 seconds",
    side: "seller",
    catalogueId: "S09",
    fix: "Set maxTimeoutSeconds between 30 and 300 seconds for exact payments.",
  },
  {
    code: "resource_url_mismatch",
    title: "resource.url differs from the URL that was requested",
    side: "seller",
    catalogueId: "S10",
    fix: "Behind a TLS proxy, trust X-Forwarded-Proto/Host so resource.url names the public https URL.",
  },
  {
    code: "testnet_only",
    title: "Only testnet networks are offered",
    side: "seller",
    catalogueId: "S11",
    fix: "Offer a mainnet network (eip155:8453) on production routes.",
  },
  {
    code: "invalid_payment_requirements",
    title: "The facilitator refused the seller's payment requirements",
    side: "seller",
    fix: "Check every accepts field against the network (asset, payTo, amount, extra); the checkup lists what is wrong.",
    aliases: ["invalid_payment_requirements"],
  },
  {
    code: "route_misconfigured",
    title: "The seller's payment route is misconfigured",
    side: "seller",
    fix: "Fix the route configuration the SDK complains about (scheme, payment flow, asset transfer method).",
    aliases: ["unsupported_payment_flow", "missing_facilitator"],
    patterns: [/RouteConfigurationError|route configuration error/i],
  },
  {
    code: "solana_fee_payer_missing",
    title: "The Solana option has no extra.feePayer",
    side: "seller",
    catalogueId: "P01",
    fix: "Copy the facilitator's fee payer from GET /supported into extra.feePayer.",
    aliases: ["invalid_exact_svm_payload_missing_fee_payer"],
    patterns: [/feePayer is required/i],
  },
  {
    code: "solana_fee_payer_mismatch",
    title: "The Solana fee payer is not one the facilitator manages",
    side: "seller",
    catalogueId: "F10",
    fix: "Read the fee payer from the facilitator's /supported signers at runtime instead of hard-coding it.",
    aliases: [
      "invalid_exact_svm_fee_payer_mismatch",
      "invalid_exact_svm_fee_payer_not_managed_by_facilitator",
      "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds",
    ],
  },
  {
    code: "solana_recipient_account_missing",
    title: "payTo has no USDC token account on Solana",
    side: "seller",
    catalogueId: "P02",
    fix: "Create the associated USDC token account of payTo before listing the route.",
    aliases: ["invalid_exact_svm_payload_receiver_ata_not_found"],
    patterns: [/InvalidAccountData/, /receiver_ata_not_found/i],
  },
  {
    code: "cors_hides_challenge",
    title: "Browsers cannot read PAYMENT-REQUIRED (CORS)",
    side: "seller",
    catalogueId: "H01",
    fix: "Send Access-Control-Allow-Origin and Access-Control-Expose-Headers: PAYMENT-REQUIRED, PAYMENT-RESPONSE.",
  },
  {
    code: "preflight_refuses_payment_header",
    title: "The CORS preflight does not allow PAYMENT-SIGNATURE",
    side: "seller",
    catalogueId: "H02",
    fix: "Answer OPTIONS with 204 and Access-Control-Allow-Headers including PAYMENT-SIGNATURE.",
    patterns: [/preflight/i, /not allowed by access-control-allow-headers/i],
  },
  {
    code: "auth_before_paywall",
    title: "The endpoint asks for authentication instead of payment",
    side: "seller",
    catalogueId: "H03",
    fix: "Put the payment middleware before authentication so unpaid requests get 402, not 401.",
  },
  {
    code: "validates_before_paywall",
    title: "The seller validates the request before its paywall",
    side: "seller",
    fix:
      "Answer a request with no parameters at all (GET with an empty query; POST with no body or {}) with the " +
      "route's 402 and its Bazaar declaration (input schema and an example); keep the 400 for requests that carry " +
      "wrong parameters. Indexers (x402scan, the CDP Bazaar, agentcash) probe routes bare and list a route that " +
      "answers 400 as unprotected, so it is never found.",
  },
  {
    code: "paid_route_free",
    title: "The endpoint serves data without payment",
    side: "seller",
    catalogueId: "H04",
    fix: "Gate every method that returns data behind the paywall.",
  },
  {
    code: "data_in_402_body",
    title: "The 402 body carries data beyond the challenge",
    side: "seller",
    catalogueId: "H04",
    fix: "Put only the challenge (and perhaps a free-sample link) in the 402 body.",
  },
  {
    code: "malformed_payment_header_500",
    title: "A malformed payment header makes the server fail",
    side: "seller",
    catalogueId: "H11",
    fix: "Answer 402 with the challenge when PAYMENT-SIGNATURE cannot be parsed.",
  },
  {
    code: "payment_not_verified",
    title: "The endpoint accepts a payment header without verifying it",
    side: "seller",
    catalogueId: "R01",
    fix: "Verify every payment with the facilitator and settle it before serving data.",
  },
  {
    code: "slow_challenge",
    title: "The 402 takes over a second",
    side: "seller",
    catalogueId: "H12",
    fix: "Build the challenge without chain or facilitator calls on the unpaid path.",
  },
  {
    code: "challenge_cacheable",
    title: "The 402 may be cached",
    side: "seller",
    catalogueId: "H13",
    fix: "Send Cache-Control: no-store on 402 and error answers.",
  },
  {
    code: "endpoint_not_found",
    title: "The URL does not exist",
    side: "client",
    catalogueId: "H05",
    fix: "Check the URL's path; if a catalogue listed it, that listing is stale and the seller should remove it.",
  },
  {
    code: "request_rejected",
    title: "The seller rejects the request itself",
    side: "client",
    fix: "Fix the request's method, parameters or body as the seller's error says; payment comes after a valid request.",
  },
  {
    code: "seller_server_error",
    title: "The seller's server failed",
    side: "seller",
    fix: "A 5xx is the seller's fault and should not be charged; retry later or tell the seller.",
    aliases: ["handler_threw", "handler_failed", "internal_error"],
  },
  {
    code: "proxy_header_too_big",
    title: "A reverse proxy refuses the 402's header block",
    side: "seller",
    fix: 'A proxy in front of the seller holds the whole response head (status line and headers, PAYMENT-REQUIRED included) in one buffer and answers 502 past it: nginx 4 KB by default ("upstream sent too big header"), HAProxy 16 KB. Keep the 402\'s head under 4 KB, or raise the buffer: nginx `proxy_buffer_size 16k; proxy_buffers 8 16k; proxy_busy_buffers_size 32k;`, Apache each backend header line within `responsefieldsize=16384` on its ProxyPass line (releases without that parameter: `LimitRequestFieldSize 16384`) and `ProxyIOBufferSize 65536`, HAProxy `tune.bufsize 32768`.',
    patterns: [/upstream sent too big header/i, /too big header/i],
  },
  {
    code: "seller_unreachable",
    title: "The seller cannot be reached",
    side: "seller",
    fix: "The host did not answer (DNS, connection or TLS failed, or it timed out); retry later or tell the seller.",
    patterns: [
      /ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|socket hang up|fetch failed|certificate has expired/i,
    ],
  },
  {
    code: "seller_charged_for_error",
    title: "The seller settled a payment for an error answer",
    side: "seller",
    catalogueId: "V01",
    fix: "Settle only after a 2xx answer (verify → handle → settle); the seller owes a refund.",
  },
  {
    code: "waf_block",
    title: "A firewall or bot wall blocks the request before the paywall",
    side: "network",
    catalogueId: "N01",
    fix: "The seller's edge blocks automated clients; the seller should allow agents on paid routes.",
    patterns: [
      /attention required|just a moment\.\.\.|cf-chl|captcha|bot protection|access denied|request blocked/i,
    ],
  },
  {
    code: "geo_block",
    title: "The request is refused for its region",
    side: "network",
    catalogueId: "N02",
    fix: "The seller refuses your region (451 or a regional 403); call from an allowed region or ask the seller.",
    patterns: [/unavailable for legal reasons|not available in your (country|region)/i],
  },
  {
    code: "rate_limited",
    title: "The seller rate-limits the caller",
    side: "seller",
    catalogueId: "N03",
    fix: "Wait for Retry-After and retry; this is a limit, not an outage.",
    aliases: ["rate_limited", "rate_limit_exceeded", "too_many_requests"],
    patterns: [/too many requests|rate.?limit/i],
  },

  // The buyer's payment: client code, SDK and wallet.
  {
    code: "signature_invalid",
    title: "The payment signature does not verify",
    side: "client",
    fix: "Sign the accepted requirement exactly as offered, with the EIP-712 domain from extra (name, version, chainId, asset as verifyingContract).",
    aliases: [
      "invalid_exact_evm_payload_signature",
      "invalid_exact_evm_signature",
      "invalid_exact_evm_failed_to_verify_signature",
      "invalid_permit2_signature",
      "invalid_exact_svm_payload_signature_invalid",
      "erc20_approval_tx_invalid_signature",
    ],
    patterns: [/invalid signature|signature (is )?invalid|signature verification failed/i],
  },
  {
    code: "signature_unparseable",
    title: "The signature cannot be parsed",
    side: "client",
    fix: "Send the 65-byte signature as 0x-prefixed hex (r, s, v).",
    aliases: ["invalid_exact_evm_failed_to_parse_signature"],
  },
  {
    code: "typed_data_mangled",
    title: "The wallet signed different typed data",
    side: "wallet",
    catalogueId: "W08",
    fix: "Include EIP712Domain in the typed data's types and sign TransferWithAuthorization unchanged.",
    patterns: [/EIP712Domain/],
  },
  {
    code: "recipient_mismatch",
    title: "The payment is addressed to someone other than payTo",
    side: "client",
    fix: "Set authorization.to to the accepted requirement's payTo (fetch a fresh challenge if the seller changed it).",
    aliases: [
      "invalid_exact_evm_payload_recipient_mismatch",
      "invalid_exact_evm_recipient_mismatch",
      "invalid_permit2_recipient_mismatch",
      "invalid_exact_svm_payload_recipient_mismatch",
      "permit2_invalid_destination",
    ],
  },
  {
    code: "amount_mismatch",
    title: "The signed amount differs from the required amount",
    side: "client",
    fix: "Sign exactly the requirement's amount (atomic units); exact payments must match to the unit.",
    aliases: [
      "invalid_exact_evm_payload_authorization_value_mismatch",
      "invalid_exact_evm_payload_authorization_value",
      "invalid_exact_evm_authorization_value",
      "permit2_amount_mismatch",
      "permit2_invalid_amount",
      "permit2_2612_amount_mismatch",
      "invalid_exact_svm_payload_amount_mismatch",
    ],
  },
  {
    code: "asset_mismatch",
    title: "The payment moves a different token than required",
    side: "client",
    fix: "Pay with the asset named in the accepted requirement.",
    aliases: [
      "invalid_exact_svm_payload_mint_mismatch",
      "permit2_token_mismatch",
      "eip2612_asset_mismatch",
      "erc20_approval_asset_mismatch",
    ],
  },
  {
    code: "network_mismatch",
    title: "The payment is for another network than required",
    side: "client",
    catalogueId: "W01",
    fix: "Pay on a network the challenge offers (and that your wallet is funded on).",
    aliases: [
      "invalid_network",
      "invalid_exact_evm_network_mismatch",
      "invalid_exact_svm_network_mismatch",
      "unsupported_network",
    ],
  },
  {
    code: "scheme_mismatch",
    title: "The payment uses a scheme the requirement does not",
    side: "client",
    fix: "Pay with the scheme of the accepted requirement (exact).",
    aliases: ["invalid_scheme", "invalid_exact_evm_scheme", "invalid_exact_svm_unsupported_scheme"],
  },
  {
    code: "no_matching_requirements",
    title: "The payment matches none of the current requirements",
    side: "client",
    fix: "Pay against a fresh challenge: the price, payTo or network changed since the one you signed (or the seller's dynamic price is not deterministic).",
    aliases: ["no_matching_requirements"],
    patterns: [/no matching payment requirements/i],
  },
  {
    code: "payload_malformed",
    title: "The payment payload is malformed",
    side: "client",
    catalogueId: "F03",
    fix: "Send PAYMENT-SIGNATURE as standard base64 JSON {x402Version:2, accepted, payload}; a smart-wallet payer needs a facilitator that supports ERC-1271/6492.",
    aliases: [
      "invalid_payload",
      "invalid_payment",
      "invalid_payment_header",
      "unsupported_payload_type",
      "invalid_exact_svm_payload_transaction",
      "invalid_exact_svm_payload_transaction_could_not_be_decoded",
    ],
    patterns: [/not base64-encoded x402 json/i],
  },
  {
    code: "x402_version_mismatch",
    title: "The payment's x402 version differs from the seller's",
    side: "client",
    fix: "Send x402Version 2 payloads to v2 sellers (PAYMENT-SIGNATURE), v1 payloads (X-PAYMENT) only to v1 sellers.",
    aliases: ["invalid_x402_version"],
  },
  {
    code: "payment_header_mismatch",
    title: "The payment went in the other protocol version's header",
    side: "client",
    catalogueId: "H09",
    fix: "v2 sellers read PAYMENT-SIGNATURE; X-PAYMENT is v1. Send the header of the version the challenge names.",
    patterns: [/x-payment header/i],
  },
  {
    code: "payment_not_received",
    title: "The seller treated the paid retry as unpaid",
    side: "client",
    catalogueId: "H09",
    fix: "Send the payment in PAYMENT-SIGNATURE as standard base64 JSON on the retry of the identical request (X-PAYMENT is only read by v1 sellers).",
    aliases: ["payment_required"],
    patterns: [/^payment required\.?$/im],
  },
  {
    code: "payment_already_attempted",
    title: "The client refused to pay twice for one request",
    side: "client",
    fix: "Do not pre-set PAYMENT-SIGNATURE; if the paid retry got another 402, read its error to see why the payment was refused.",
    patterns: [/payment already attempted/i],
  },
  {
    code: "nonce_already_used",
    title: "This authorization was already used",
    side: "client",
    catalogueId: "R02",
    fix: "Sign a new authorization (fresh nonce) for every request; if a settlement is in doubt, reconcile before paying again.",
    aliases: [
      "invalid_exact_evm_nonce_already_used",
      "duplicate_settlement",
      "payment_already_used",
      "permit2_invalid_nonce",
    ],
    patterns: [/authorization is used or canceled|nonce already used/i],
  },
  {
    code: "no_scheme_registered",
    title: "The client has no scheme registered for the offered networks",
    side: "client",
    catalogueId: "W01",
    fix: "Register a scheme for a network the challenge offers, e.g. new x402Client().register('eip155:*', new ExactEvmScheme(account)).",
    patterns: [/no network\/scheme registered/i, /SchemeNotFoundError/, /NoMatchingRequirementsError/],
  },
  {
    code: "spend_controls_refused",
    title: "The client's own spend controls refused the price",
    side: "client",
    fix: "Raise maxAmountPerPayment (the default cap is $1 on known assets) or allow the asset in setSpendControls.",
    patterns: [/filtered out by policies/i, /maxAmountPerPayment|spend (cap|control)/i],
  },
  {
    code: "extension_validator_missing",
    title: "The client lacks the extension validator",
    side: "client",
    catalogueId: "W04",
    fix: "Install the SDK with its extensions (pip install 'x402[extensions]').",
    patterns: [/extensions validation requires jsonschema/i],
  },
  {
    code: "extension_echo_mismatch",
    title: "The payment did not echo the offered extensions",
    side: "client",
    catalogueId: "D01",
    fix: "Copy resource and extensions from the challenge into the payment payload unchanged.",
    aliases: ["extension_echo_mismatch"],
  },
  {
    code: "authorization_expired",
    title: "The authorization expired before it was settled",
    side: "client",
    catalogueId: "T03",
    fix: "Sign a fresh authorization and pay promptly; check the client's clock.",
    aliases: [
      "invalid_exact_evm_payload_authorization_valid_before",
      "permit2_deadline_expired",
      "eip2612_deadline_expired",
      "payment_expired",
    ],
    patterns: [/authorization (has )?expired/i],
  },
  {
    code: "authorization_not_yet_valid",
    title: "The authorization is not valid yet (clock ahead)",
    side: "client",
    catalogueId: "T01",
    fix: "Correct the client's clock or backdate validAfter (the SDK uses 10 minutes).",
    aliases: [
      "invalid_exact_evm_payload_authorization_valid_after",
      "permit2_not_yet_valid",
      "permit2_payment_too_early",
    ],
    patterns: [/not yet valid/i],
  },
  {
    code: "authorization_validity_too_short",
    title: "The authorization's validity window is too short",
    side: "client",
    catalogueId: "T02",
    fix: "Give validBefore a margin for clock skew (at least maxTimeoutSeconds from now).",
    aliases: ["authorization_validity_too_short"],
  },
  {
    code: "insufficient_funds",
    title: "The paying wallet holds too little USDC",
    side: "wallet",
    catalogueId: "W02",
    fix: "Top up the payer's USDC on the network paid on, by at least the required amount.",
    aliases: [
      "insufficient_funds",
      "insufficient_balance",
      "invalid_exact_evm_insufficient_balance",
      "invalid_exact_evm_insufficient_funds",
      "permit2_insufficient_balance",
    ],
    patterns: [/transfer amount exceeds balance/i, /insufficient (usdc )?(balance|funds)(?! for gas)/i],
  },
  {
    code: "permit2_allowance_required",
    title: "The wallet has not approved Permit2",
    side: "wallet",
    catalogueId: "W03",
    fix: "Approve the Permit2 contract for the token once, then pay again.",
    aliases: ["permit2_allowance_required", "insufficient_allowance"],
  },
  {
    code: "permit2_spender_invalid",
    title: "The Permit2 authorization names the wrong spender or owner",
    side: "client",
    fix: "Sign the Permit2 authorization for the x402 Permit2 proxy with the paying wallet as owner.",
    aliases: ["invalid_permit2_spender", "permit2_proxy_not_deployed", "permit2_invalid_owner"],
  },
  {
    code: "approval_extension_invalid",
    title: "The gas-sponsored approval (EIP-2612 / ERC-20) is invalid",
    side: "client",
    fix: "Build the approval extension as the scheme requires: the payer as signer, the payment's asset, Permit2 as spender.",
    aliases: [
      "invalid_eip2612_extension_format",
      "eip2612_from_mismatch",
      "eip2612_spender_not_permit2",
      "invalid_erc20_approval_extension_format",
      "erc20_approval_from_mismatch",
      "erc20_approval_spender_not_permit2",
      "erc20_approval_broadcast_failed",
    ],
    prefixes: ["erc20_approval_tx_"],
  },
  {
    code: "smart_wallet_signature",
    title: "A smart-wallet signature the facilitator cannot use",
    side: "wallet",
    catalogueId: "W05",
    fix: "Pay from an EOA, or use a facilitator that verifies ERC-1271/ERC-6492 signatures (and deploys the wallet).",
    aliases: [
      "eip6492_factory_not_allowed",
      "smart_wallet_deployment_failed",
      "invalid_exact_evm_payload_undeployed_smart_wallet",
    ],
    prefixes: ["invalid_exact_svm_smart_wallet_"],
    patterns: [/isValidSignature|0xffffffff|erc-?1271|erc-?6492/i],
  },
  {
    code: "simulation_failed",
    title: "The transfer would revert (simulation failed)",
    side: "wallet",
    fix: "Check the payer's balance and that the authorization is unused and unexpired; then sign a fresh one.",
    aliases: [
      "invalid_exact_evm_transaction_simulation_failed",
      "permit2_simulation_failed",
      "invalid_exact_svm_transaction_simulation_failed",
    ],
  },
  {
    code: "solana_instruction_layout",
    title: "The Solana transaction's instructions are not the allowed layout",
    side: "wallet",
    catalogueId: "P03",
    fix: "Send only ComputeLimit, ComputePrice, TransferChecked and Memo; wallets that inject extra instructions need a facilitator that allows them.",
    aliases: [
      "invalid_exact_svm_payload_no_transfer_instruction",
      "invalid_exact_svm_payload_excessive_signers",
      "invalid_exact_svm_payload_memo_count",
      "invalid_exact_svm_payload_memo_mismatch",
    ],
    prefixes: ["invalid_exact_svm_payload_transaction_instructions", "invalid_exact_svm_payload_unknown_"],
    patterns: [/unknown (fourth|fifth|sixth|seventh) instruction/i, /lighthouse/i],
  },
  {
    code: "solana_blockhash_expired",
    title: "The Solana blockhash expired before settlement",
    side: "network",
    catalogueId: "P05",
    fix: "Build the transaction with a fresh blockhash and pay promptly.",
    aliases: ["settle_exact_svm_block_height_exceeded"],
    patterns: [/block ?height exceeded|blockhash not found/i],
  },

  // The facilitator and settlement.
  {
    code: "facilitator_unavailable",
    title: "The facilitator did not answer",
    side: "facilitator",
    fix: "Nothing was charged; retry later. Sellers: monitor the facilitator and consider a second one.",
    aliases: ["facilitator_unavailable"],
    patterns: [/FacilitatorResponseError|facilitator (did not answer|is unavailable|unavailable)/i],
  },
  {
    code: "facilitator_unexpected_error",
    title: "The facilitator failed with an unexpected error",
    side: "facilitator",
    catalogueId: "F03",
    fix: "Retry once; if it repeats, the seller should log the facilitator's message verbatim and report it.",
    aliases: ["unexpected_verify_error", "unexpected_settle_error", "invalid_exact_svm_verification_failed"],
  },
  {
    code: "facilitator_rpc_failed",
    title: "The facilitator could not read the chain",
    side: "facilitator",
    fix: "A transient RPC failure at the facilitator; retry.",
    aliases: ["invalid_exact_evm_failed_to_check_nonce", "invalid_exact_evm_failed_to_get_balance"],
  },
  {
    code: "facilitator_out_of_gas",
    title: "The facilitator's signer cannot pay gas",
    side: "facilitator",
    catalogueId: "F04",
    fix: "The facilitator must fund its fee payer; nothing the buyer can do.",
    aliases: ["failed_to_execute_transfer"],
    patterns: [/insufficient funds for (gas|intrinsic transaction cost)|out of gas/i],
  },
  {
    code: "gas_estimation_failed",
    title: "The facilitator could not estimate gas",
    side: "facilitator",
    catalogueId: "F05",
    fix: "Usually transient at the facilitator; retry with a fresh authorization.",
    patterns: [/(unable|cannot|failed) to estimate gas/i],
  },
  {
    code: "fee_payer_nonce_collision",
    title: "The facilitator's transactions collided",
    side: "facilitator",
    catalogueId: "F06",
    fix: "A self-hosted facilitator must serialise its fee payer's nonces; retry.",
    patterns: [/replacement (transaction )?underpriced|nonce too low/i],
  },
  {
    code: "settlement_pending",
    title: "Settlement is still pending or its outcome unknown",
    side: "facilitator",
    catalogueId: "F07",
    fix: "Do not pay again: look up the transaction (or ask the seller to reconcile) before retrying.",
    aliases: [
      "settlement_pending",
      "settlement_unknown",
      "settle_exact_svm_transaction_confirmation_timed_out",
      "post_settlement_transfer_not_confirmed",
    ],
    patterns: [/FacilitatorTimeoutError/],
  },
  {
    code: "settlement_failed",
    title: "Verification passed but settlement failed",
    side: "facilitator",
    catalogueId: "F08",
    fix: "No data should have been served and nothing charged; retry with a fresh authorization, and check the transaction if one is named.",
    aliases: [
      "settlement_failed",
      "transaction_failed",
      "invalid_exact_evm_transaction_failed",
      "invalid_exact_svm_transaction_failed",
      "invalid_transaction_state",
      "invalid_exact_evm_transfer_event_mismatch",
    ],
  },
  {
    code: "facilitator_network_unsupported",
    title: "The seller's facilitator does not support the network or scheme",
    side: "seller",
    catalogueId: "F01",
    fix: "The seller must use a facilitator that supports this network (x402.org is testnet only).",
    patterns: [/no facilitator registered/i, /FacilitatorCapabilityError/],
  },
  {
    code: "facilitator_auth_failed",
    title: "The seller's facilitator credentials are wrong",
    side: "seller",
    catalogueId: "F02",
    fix: "The seller must fix its facilitator API key (CDP key id and secret) — buyers cannot fix this.",
    aliases: ["payment_verification_failed"],
    patterns: [/facilitator.{0,40}(401|unauthori[sz]ed)|invalid (jwt|api key)/i],
  },
  {
    code: "sanctions_refused",
    title: "A compliance screen refused the payer or recipient",
    side: "facilitator",
    catalogueId: "F09",
    fix: "A policy refusal, not an error: the facilitator screens addresses against sanctions lists.",
    aliases: ["sanctioned_address", "compliance_rejected"],
    patterns: [/sanction|ofac|blocked (address|wallet)/i],
  },
];

const byCode = new Map(CAUSES.map((c) => [c.code, c]));
const byAlias = new Map<string, Cause>();
for (const cause of CAUSES) {
  for (const alias of cause.aliases ?? []) byAlias.set(alias.toLowerCase(), cause);
}

export function causeByCode(code: string): Cause {
  const cause = byCode.get(code);
  if (!cause) throw new Error(`no cause ${code} in the catalogue`);
  return cause;
}

/** The cause a reason string (as a spec, SDK or facilitator writes it) names, if the catalogue knows it. */
export function causeForReason(reason: string): Cause | undefined {
  const key = reason
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  const exact = byAlias.get(key) ?? byCode.get(key);
  if (exact) return exact;
  return CAUSES.find((c) => c.prefixes?.some((p) => key.startsWith(p)));
}

/** Causes whose free-text patterns occur in the text, in catalogue order. */
export function causesInText(text: string): Cause[] {
  return CAUSES.filter((c) => c.patterns?.some((p) => p.test(text)));
}
