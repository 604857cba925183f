// Each case is an error as a buyer would paste it (facilitator JSON, a 402 body, a base64 header, an
// exception message, an HTML page) and the one cause, side and fix the doctor names for it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { CAUSES, causeForReason, type Side } from "./causes.ts";
import { diagnose } from "./diagnose.ts";

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const PAY_TO = "0x2222222222222222222222222222222222222222";
const requirement = {
  scheme: "exact",
  network: "eip155:8453",
  amount: "10000",
  asset: BASE_USDC,
  payTo: PAY_TO,
  maxTimeoutSeconds: 300,
  extra: { name: "USD Coin", version: "2" },
};
const challengeOf = (req: Record<string, unknown>) => ({
  x402Version: 2,
  error: "Payment required",
  resource: { url: "https://api.example.com/v1/data", mimeType: "application/json" },
  accepts: [req],
});

const cases: Array<[label: string, response: string, cause: string, side: Side]> = [
  [
    "facilitator verify answer with the spec's signature code",
    JSON.stringify({
      isValid: false,
      invalidReason: "invalid_exact_evm_payload_signature",
      payer: "0x1234567890123456789012345678901234567890",
    }),
    "signature_invalid",
    "client",
  ],
  [
    "SDK's name for the same failure, as reason: message",
    "invalid_exact_evm_signature: signature does not match payer",
    "signature_invalid",
    "client",
  ],
  [
    "base64 PAYMENT-RESPONSE of a failed settlement for lack of funds",
    b64({
      success: false,
      errorReason: "insufficient_funds",
      transaction: "",
      network: "eip155:8453",
      payer: "0xabc",
    }),
    "insufficient_funds",
    "wallet",
  ],
  [
    "status line and PAYMENT-RESPONSE header of a reused authorization",
    `HTTP/1.1 402 Payment Required\nPAYMENT-RESPONSE: ${b64({ success: false, errorReason: "invalid_exact_evm_nonce_already_used", transaction: "", network: "eip155:8453" })}`,
    "nonce_already_used",
    "client",
  ],
  [
    "a v2 402 body whose error is the expired-authorization reason",
    JSON.stringify({
      ...challengeOf(requirement),
      error: "invalid_exact_evm_payload_authorization_valid_before",
    }),
    "authorization_expired",
    "client",
  ],
  [
    "token-name mismatch from the SDK facilitator",
    JSON.stringify({ error: "invalid_exact_evm_token_name_mismatch" }),
    "eip712_domain_mismatch",
    "seller",
  ],
  ["spec recipient mismatch", "invalid_exact_evm_payload_recipient_mismatch", "recipient_mismatch", "client"],
  [
    "SDK recipient mismatch alias",
    JSON.stringify({ invalidReason: "invalid_exact_evm_recipient_mismatch" }),
    "recipient_mismatch",
    "client",
  ],
  [
    "the SDK server's 402 when the payment matches nothing",
    JSON.stringify({ ...challengeOf(requirement), error: "No matching payment requirements" }),
    "no_matching_requirements",
    "client",
  ],
  [
    "@x402/fetch without a scheme for the network",
    "Error: Failed to create payment payload: No network/scheme registered for x402 version: 2 which comply with the payment requirements",
    "no_scheme_registered",
    "client",
  ],
  [
    "@x402/fetch refusing to pay twice",
    "Error: Payment already attempted\n    at wrapFetchWithPayment (index.mjs:52:13)",
    "payment_already_attempted",
    "client",
  ],
  [
    "an unreadable challenge",
    "Error: Failed to parse payment requirements: Invalid payment required response",
    "challenge_missing",
    "seller",
  ],
  [
    "a pending settlement with its transaction",
    JSON.stringify({
      success: false,
      errorReason: "settlement_pending",
      transaction: `0x${"ab".repeat(32)}`,
      network: "eip155:8453",
    }),
    "settlement_pending",
    "facilitator",
  ],
  [
    "the SDK's settle timeout",
    "FacilitatorTimeoutError: Facilitator settle timed out after 90000ms",
    "settlement_pending",
    "facilitator",
  ],
  [
    "invalid_payload without a message",
    JSON.stringify({ isValid: false, invalidReason: "invalid_payload" }),
    "payload_malformed",
    "client",
  ],
  [
    "Permit2 allowance over HTTP 412",
    'HTTP/1.1 412 Precondition Failed\ncontent-type: application/json\n\n{"error":"permit2_allowance_required"}',
    "permit2_allowance_required",
    "wallet",
  ],
  ["a bare 412", "HTTP/1.1 412 Precondition Failed", "permit2_allowance_required", "wallet"],
  [
    "a Cloudflare challenge page",
    "HTTP/2 403\nserver: cloudflare\n\n<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body>Please enable cookies.</body></html>",
    "waf_block",
    "network",
  ],
  ["a region block", "HTTP/1.1 451 Unavailable For Legal Reasons", "geo_block", "network"],
  ["a rate limit", "HTTP/1.1 429 Too Many Requests\nRetry-After: 30", "rate_limited", "seller"],
  [
    "Solana instruction count",
    JSON.stringify({
      isValid: false,
      invalidReason: "invalid_exact_svm_payload_transaction_instructions_length",
    }),
    "solana_instruction_layout",
    "wallet",
  ],
  [
    "Solana unknown fourth instruction",
    "invalid_exact_svm_payload_unknown_fourth_instruction",
    "solana_instruction_layout",
    "wallet",
  ],
  [
    "Solana blockhash expired",
    JSON.stringify({
      success: false,
      errorReason: "settle_exact_svm_block_height_exceeded",
      transaction: "",
    }),
    "solana_blockhash_expired",
    "network",
  ],
  [
    "Solana client without a fee payer",
    "Error: feePayer is required in paymentRequirements.extra for SVM transactions",
    "solana_fee_payer_missing",
    "seller",
  ],
  [
    "Solana fee payer rotated",
    JSON.stringify({ errorReason: "invalid_exact_svm_fee_payer_not_managed_by_facilitator" }),
    "solana_fee_payer_mismatch",
    "seller",
  ],
  [
    "Solana recipient without a token account",
    "Transaction simulation failed: Error processing Instruction 2: invalid account data for instruction (InvalidAccountData)",
    "solana_recipient_account_missing",
    "seller",
  ],
  [
    "an unexpected settle error whose message names a nonce collision",
    JSON.stringify({
      success: false,
      errorReason: "unexpected_settle_error",
      errorMessage: "replacement transaction underpriced",
    }),
    "fee_payer_nonce_collision",
    "facilitator",
  ],
  [
    "a facilitator out of gas",
    JSON.stringify({
      success: false,
      errorReason: "failed_to_execute_transfer",
      errorMessage: "insufficient funds for gas * price + value",
    }),
    "facilitator_out_of_gas",
    "facilitator",
  ],
  [
    "gas estimation inside an unexpected verify error",
    "unexpected_verify_error: unable to estimate gas: execution reverted",
    "gas_estimation_failed",
    "facilitator",
  ],
  [
    "an undeployed smart wallet",
    JSON.stringify({ error: "invalid_exact_evm_payload_undeployed_smart_wallet" }),
    "smart_wallet_signature",
    "wallet",
  ],
  [
    "an ERC-1271 refusal",
    "execution reverted: isValidSignature returned 0xffffffff",
    "smart_wallet_signature",
    "wallet",
  ],
  [
    "clock ahead",
    JSON.stringify({ invalidReason: "invalid_exact_evm_payload_authorization_valid_after" }),
    "authorization_not_yet_valid",
    "client",
  ],
  [
    "validity too short",
    "authorization_validity_too_short: validBefore must be at least 30s in the future",
    "authorization_validity_too_short",
    "client",
  ],
  ["unsupported scheme", JSON.stringify({ error: "unsupported_scheme" }), "scheme_unsupported", "seller"],
  [
    "wrong network",
    JSON.stringify({ isValid: false, invalidReason: "invalid_network" }),
    "network_mismatch",
    "client",
  ],
  [
    "wrong x402 version",
    JSON.stringify({ isValid: false, invalidReason: "invalid_x402_version" }),
    "x402_version_mismatch",
    "client",
  ],
  [
    "facilitator without the network",
    "Error: No facilitator registered for scheme: exact and network: eip155:8453",
    "facilitator_network_unsupported",
    "seller",
  ],
  [
    "a paid route answering that the facilitator did not answer",
    JSON.stringify({
      error: "facilitator_unavailable",
      message: "The payment facilitator did not answer the verification; nothing was charged. Try again.",
      charged: false,
    }),
    "facilitator_unavailable",
    "facilitator",
  ],
  ["a bare 502", "HTTP/1.1 502 Bad Gateway", "facilitator_unavailable", "facilitator"],
  [
    "seller's facilitator credentials",
    JSON.stringify({
      error: "payment_verification_failed",
      details: "Facilitator returned 401 Unauthorized",
    }),
    "facilitator_auth_failed",
    "seller",
  ],
  [
    "sanctions screening",
    JSON.stringify({
      isValid: false,
      invalidReason: "sanctioned_address",
      invalidMessage: "payer is on the OFAC SDN list",
    }),
    "sanctions_refused",
    "facilitator",
  ],
  [
    "a token without EIP-3009",
    JSON.stringify({ error: "invalid_exact_evm_eip3009_not_supported" }),
    "eip3009_not_supported",
    "seller",
  ],
  [
    "an asset that is not a contract",
    JSON.stringify({ invalidReason: "asset_not_deployed_contract" }),
    "asset_wrong_network",
    "seller",
  ],
  [
    "the client's own spend cap",
    "Error: Failed to create payment payload: All payment requirements were filtered out by policies",
    "spend_controls_refused",
    "client",
  ],
  [
    "a Python client without its extensions",
    "ImportError: Extensions validation requires jsonschema. Install x402[extensions]",
    "extension_validator_missing",
    "client",
  ],
  [
    "a fresh 'Payment required' after a paid retry",
    JSON.stringify({ ...challengeOf(requirement), error: "Payment required" }),
    "payment_not_received",
    "client",
  ],
  [
    "Vercel's 402",
    "HTTP/1.1 402 Payment Required\n\nThe deployment is currently unavailable. DEPLOYMENT_DISABLED",
    "host_platform_402",
    "seller",
  ],
  [
    "a 500 that was settled anyway",
    `HTTP/1.1 500 Internal Server Error\nPAYMENT-RESPONSE: ${b64({ success: true, transaction: `0x${"cd".repeat(32)}`, network: "eip155:8453" })}`,
    "seller_charged_for_error",
    "seller",
  ],
  [
    "Permit2 deadline",
    JSON.stringify({ isValid: false, invalidReason: "permit2_deadline_expired" }),
    "authorization_expired",
    "client",
  ],
  [
    "ERC-20 approval transaction family",
    JSON.stringify({ isValid: false, invalidReason: "erc20_approval_tx_wrong_spender" }),
    "approval_extension_invalid",
    "client",
  ],
  [
    "an auth wall instead of a paywall",
    "HTTP/1.1 401 Unauthorized\nwww-authenticate: Bearer",
    "auth_before_paywall",
    "seller",
  ],
  [
    "a seller that is down",
    "TypeError: fetch failed\n  [cause]: Error: connect ECONNREFUSED 203.0.113.7:443",
    "seller_unreachable",
    "seller",
  ],
];

describe("known failures resolve to one canonical cause", () => {
  for (const [label, response, cause, side] of cases) {
    test(label, async () => {
      const answer = await diagnose({ response });
      assert.equal(answer.verdict, "diagnosed", JSON.stringify(answer.reason));
      assert.equal(answer.cause, cause);
      assert.equal(answer.side, side);
      assert.ok(answer.fix.length > 20);
      assert.equal(answer.review.kept, false);
    });
  }
});

describe("the catalogue", () => {
  test("has over 40 causes with unique codes and aliases, each with a side and a fix", () => {
    assert.ok(CAUSES.length > 40, `${CAUSES.length} causes`);
    assert.equal(new Set(CAUSES.map((c) => c.code)).size, CAUSES.length);
    const aliases = CAUSES.flatMap((c) => c.aliases ?? []);
    assert.equal(new Set(aliases.map((a) => a.toLowerCase())).size, aliases.length);
    for (const cause of CAUSES) assert.ok(cause.fix.length > 20 && cause.title.length > 5, cause.code);
  });

  test("names from the spec, the SDK and facilitators for one failure map onto one code", () => {
    assert.equal(
      causeForReason("invalid_exact_evm_payload_signature")?.code,
      causeForReason("invalid_exact_evm_signature")?.code,
    );
    assert.equal(
      causeForReason("invalid_exact_evm_payload_authorization_value")?.code,
      causeForReason("invalid_exact_evm_payload_authorization_value_mismatch")?.code,
    );
    assert.equal(
      causeForReason("INSUFFICIENT_FUNDS")?.code,
      causeForReason("invalid_exact_evm_insufficient_balance")?.code,
    );
    assert.equal(causeForReason("PERMIT2_ALLOWANCE_REQUIRED")?.code, "permit2_allowance_required");
  });
});

describe("unknown reasons are kept verbatim", () => {
  test("a code the catalogue does not know", async () => {
    const answer = await diagnose({
      response: JSON.stringify({ isValid: false, invalidReason: "invalid_exact_evm_quantum_flux" }),
    });
    assert.equal(answer.verdict, "unknown_reason");
    assert.equal(answer.cause, "unknown");
    assert.equal(answer.side, null);
    assert.equal(answer.reason.raw, "invalid_exact_evm_quantum_flux");
    assert.deepEqual(answer.review, { kept: true, key: "invalid_exact_evm_quantum_flux" });
  });

  test("free text with nothing recognisable", async () => {
    const answer = await diagnose({ response: "Something odd happened while paying, sorry" });
    assert.equal(answer.verdict, "unknown_reason");
    assert.equal(answer.review.key, "Something odd happened while paying, sorry");
  });

  test("a successful settlement is no failure", async () => {
    const answer = await diagnose({
      response: b64({ success: true, transaction: `0x${"ef".repeat(32)}`, network: "eip155:8453" }),
    });
    assert.equal(answer.verdict, "no_failure");
    assert.match(answer.title, /0xefef/);
  });
});

describe("a payment payload is cross-checked against the challenge", () => {
  async function signedPayment(
    challenge: Record<string, unknown>,
    account = privateKeyToAccount(generatePrivateKey()),
  ) {
    const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));
    const payload = await client.createPaymentPayload(challenge as unknown as PaymentRequired);
    return { payload: payload as unknown as Record<string, any>, account };
  }

  test("a seller whose extra names the wrong EIP-712 domain: the signature fails because of the seller", async () => {
    const wrong = challengeOf({ ...requirement, extra: { name: "USDC", version: "2" } });
    const { payload } = await signedPayment(wrong);
    const answer = await diagnose({
      challenge: b64(wrong),
      payment: b64(payload),
      response: JSON.stringify({ isValid: false, invalidReason: "invalid_exact_evm_payload_signature" }),
    });
    assert.equal(answer.cause, "eip712_domain_mismatch");
    assert.equal(answer.side, "seller");
    assert.equal(answer.reason.matchedBy, "evidence");
    assert.equal(answer.crossCheck.signature, "recovers_to_payer");
    assert.ok(answer.challenge.problems.some((p) => p.code === "eip712_domain_mismatch"));
  });

  test("a correct payment signed by another key than `from`", async () => {
    const challenge = challengeOf(requirement);
    const { payload } = await signedPayment(challenge);
    payload.payload.authorization.from = privateKeyToAccount(generatePrivateKey()).address;
    const answer = await diagnose({
      challenge: JSON.stringify(challenge),
      payment: JSON.stringify(payload),
      response: "invalid_exact_evm_signature",
    });
    assert.equal(answer.cause, "signature_invalid");
    assert.equal(answer.crossCheck.signature, "does_not_recover");
  });

  test("a valid signature: the doctor says so and keeps the facilitator's reason", async () => {
    const challenge = challengeOf(requirement);
    const { payload, account } = await signedPayment(challenge);
    const answer = await diagnose({
      challenge: b64(challenge),
      payment: b64(payload),
      response: "insufficient_funds",
    });
    assert.equal(answer.cause, "insufficient_funds");
    assert.equal(answer.crossCheck.signature, "recovers_to_payer");
    assert.equal(answer.crossCheck.payer, account.address);
    assert.equal(answer.crossCheck.findings.filter((f) => f.severity === "error").length, 0);
  });

  test("a payment signed against an older, cheaper challenge", async () => {
    const old = challengeOf(requirement);
    const { payload } = await signedPayment(old);
    const now = challengeOf({ ...requirement, amount: "20000" });
    const answer = await diagnose({
      challenge: b64(now),
      payment: b64(payload),
      response: JSON.stringify({ ...now, error: "No matching payment requirements" }),
    });
    assert.equal(answer.cause, "no_matching_requirements");
    assert.ok(
      answer.crossCheck.findings.some((f) =>
        /signed for amount 10000; the challenge now asks 20000/.test(f.message),
      ),
    );
  });

  test("an authorization addressed to another wallet", async () => {
    const challenge = challengeOf(requirement);
    const { payload } = await signedPayment(challenge);
    payload.payload.authorization.to = "0x3333333333333333333333333333333333333333";
    const answer = await diagnose({
      challenge: b64(challenge),
      payment: b64(payload),
      response: "invalid_exact_evm_payload_signature",
    });
    assert.equal(answer.cause, "recipient_mismatch");
    assert.equal(answer.side, "client");
  });

  test("a client clock ten minutes ahead", async () => {
    const challenge = challengeOf(requirement);
    const { payload } = await signedPayment(challenge);
    const ahead = Math.floor(Date.now() / 1000) + 600;
    payload.payload.authorization.validAfter = String(ahead);
    payload.payload.authorization.validBefore = String(ahead + 300);
    const answer = await diagnose({
      challenge: b64(challenge),
      payment: b64(payload),
      response: JSON.stringify({
        isValid: false,
        invalidReason: "invalid_exact_evm_payload_authorization_valid_after",
      }),
    });
    assert.equal(answer.cause, "authorization_not_yet_valid");
    assert.ok((answer.crossCheck.clockSkewSeconds ?? 0) >= 590);
  });

  test("an unknown reason explained by the evidence is still kept for review", async () => {
    const challenge = challengeOf(requirement);
    const { payload } = await signedPayment(challenge);
    payload.payload.authorization.value = "1";
    const answer = await diagnose({
      challenge: b64(challenge),
      payment: b64(payload),
      response: "weird_facilitator_code_42",
    });
    assert.equal(answer.cause, "amount_mismatch");
    assert.equal(answer.verdict, "diagnosed");
    assert.deepEqual(answer.review, { kept: true, key: "weird_facilitator_code_42" });
  });

  test("a legacy network name in the seller's challenge explains invalid_network", async () => {
    const legacy = challengeOf({ ...requirement, network: "base" });
    const answer = await diagnose({
      challenge: JSON.stringify(legacy),
      response: JSON.stringify({ invalidReason: "invalid_network" }),
    });
    assert.equal(answer.cause, "legacy_network_name");
    assert.equal(answer.side, "seller");
  });

  test("a v1 body challenge explains invalid_x402_version", async () => {
    const v1 = {
      x402Version: 1,
      error: "X-PAYMENT header is required",
      accepts: [
        {
          scheme: "exact",
          network: "base",
          maxAmountRequired: "10000",
          asset: BASE_USDC,
          payTo: PAY_TO,
          resource: "https://api.example.com/v1/data",
        },
      ],
    };
    const answer = await diagnose({ challenge: JSON.stringify(v1), response: "invalid_x402_version" });
    assert.equal(answer.cause, "challenge_v1_only");
    assert.equal(answer.side, "seller");
  });

  test("a payment that is not base64 JSON", async () => {
    const answer = await diagnose({
      payment: "%%%not-a-payment%%%",
      response: JSON.stringify({ error: "invalid_payment_header" }),
    });
    assert.equal(answer.cause, "payload_malformed");
    assert.ok(answer.crossCheck.findings.some((f) => f.code === "payload_malformed"));
  });
});
