// Decodes a buyer's payment payload and checks it against the seller's challenge: network, asset, amount,
// payTo, validity window and clock, and whether the EIP-712 signature recovers to the payer under the
// challenge's domain or the token's real one.
import { type Hex, recoverTypedDataAddress } from "viem";
import { isObject, type JsonObject } from "../../../json.ts";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "../../../x402/shared/eip3009.ts";
import { networkByCaip2 } from "../../../x402/shared/networks.ts";
import { decodeJsonText } from "../checkup/challenge.ts";
import type { Severity } from "../checkup/problems.ts";

interface Finding {
  code: string;
  severity: Severity;
  message: string;
}

export interface CrossCheck {
  performed: boolean;
  findings: Finding[];
  payer: string | null;
  signature: "recovers_to_payer" | "does_not_recover" | "not_checked";
  /** Estimated client clock minus ours, in seconds (from validBefore and maxTimeoutSeconds); null when unknown. */
  clockSkewSeconds: number | null;
}

const EOA_SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
const ERC6492_SUFFIX = "6492649264926492649264926492649264926492649264926492649264926492";
/** The SDK's facilitator wants validBefore at least this far ahead when it verifies. */
const MIN_VALIDITY_S = 6;
const SKEW_TOLERANCE_S = 60;

interface Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

function readAuthorization(value: unknown): Authorization | undefined {
  if (!isObject(value)) return undefined;
  const fields = ["from", "to", "value", "validAfter", "validBefore", "nonce"] as const;
  if (!fields.every((f) => typeof value[f] === "string")) return undefined;
  return value as unknown as Authorization;
}

async function recovers(
  authorization: Authorization,
  signature: string,
  domain: { name: string; version: string; chainId: number; verifyingContract: string },
): Promise<boolean> {
  try {
    const signer = await recoverTypedDataAddress({
      domain: { ...domain, verifyingContract: domain.verifyingContract as Hex },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: "TransferWithAuthorization",
      message: {
        from: authorization.from as Hex,
        to: authorization.to as Hex,
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce as Hex,
      },
      signature: signature as Hex,
    });
    return signer.toLowerCase() === authorization.from.toLowerCase();
  } catch {
    return false;
  }
}

function matchingOption(accepts: unknown[], accepted: JsonObject): JsonObject | undefined {
  const options = accepts.filter(isObject);
  return (
    options.find((o) => o.scheme === accepted.scheme && o.network === accepted.network) ??
    options.find((o) => o.network === accepted.network)
  );
}

function compareAccepted(
  accepted: JsonObject,
  accepts: unknown[],
  findings: Finding[],
): JsonObject | undefined {
  const option = matchingOption(accepts, accepted);
  if (!option) {
    const offered = accepts.filter(isObject).map((o) => String(o.network));
    findings.push({
      code: "network_mismatch",
      severity: "error",
      message: `the payment is for ${String(accepted.network)}; the challenge offers ${offered.join(", ") || "nothing"}`,
    });
    return undefined;
  }
  if (option.scheme !== accepted.scheme) {
    findings.push({
      code: "scheme_mismatch",
      severity: "error",
      message: `the payment uses scheme ${String(accepted.scheme)}; the challenge offers ${String(option.scheme)} on ${String(option.network)}`,
    });
  }
  if (String(option.asset).toLowerCase() !== String(accepted.asset).toLowerCase()) {
    findings.push({
      code: "asset_mismatch",
      severity: "error",
      message: `the payment accepted asset ${String(accepted.asset)}; the challenge asks for ${String(option.asset)}`,
    });
  }
  if (String(option.amount) !== String(accepted.amount)) {
    findings.push({
      code: "no_matching_requirements",
      severity: "error",
      message: `the payment was signed for amount ${String(accepted.amount)}; the challenge now asks ${String(option.amount)} (a stale challenge, or a price that is not the same on the 402 and the retry)`,
    });
  }
  if (String(option.payTo).toLowerCase() !== String(accepted.payTo).toLowerCase()) {
    findings.push({
      code: "no_matching_requirements",
      severity: "error",
      message: `the payment accepted payTo ${String(accepted.payTo)}; the challenge names ${String(option.payTo)}`,
    });
  }
  return option;
}

/** The authorization pays the required recipient the required amount. */
function checkTerms(authorization: Authorization, requirement: JsonObject, findings: Finding[]): void {
  if (authorization.to.toLowerCase() !== String(requirement.payTo).toLowerCase()) {
    findings.push({
      code: "recipient_mismatch",
      severity: "error",
      message: `authorization.to is ${authorization.to}; payTo is ${String(requirement.payTo)}`,
    });
  }
  if (authorization.value !== String(requirement.amount)) {
    findings.push({
      code: "amount_mismatch",
      severity: "error",
      message: `authorization.value is ${authorization.value}; the amount required is ${String(requirement.amount)}`,
    });
  }
}

/** The validity window against now, and the client's clock skew it reveals. */
function checkValidity(
  authorization: Authorization,
  requirement: JsonObject,
  now: number,
  findings: Finding[],
  result: CrossCheck,
): void {
  const validAfter = Number(authorization.validAfter);
  const validBefore = Number(authorization.validBefore);
  if (validAfter > now + 5) {
    findings.push({
      code: "authorization_not_yet_valid",
      severity: "error",
      message: `validAfter is ${validAfter - now} s in the future: the client's clock is ahead`,
    });
  }
  if (validBefore < now) {
    findings.push({
      code: "authorization_expired",
      severity: "warning",
      message: `validBefore passed ${now - validBefore} s ago`,
    });
  } else if (validBefore - Math.max(validAfter, now) < MIN_VALIDITY_S) {
    findings.push({
      code: "authorization_validity_too_short",
      severity: "error",
      message: `the authorization is valid for only ${validBefore - Math.max(validAfter, now)} s more`,
    });
  }
  const timeout =
    typeof requirement.maxTimeoutSeconds === "number" ? requirement.maxTimeoutSeconds : undefined;
  if (timeout === undefined) return;
  // The SDK signs validBefore = its clock + maxTimeoutSeconds, so this estimates its clock at signing.
  const skew = validBefore - timeout - now;
  result.clockSkewSeconds = skew;
  if (skew > SKEW_TOLERANCE_S) {
    findings.push({
      code: "authorization_not_yet_valid",
      severity: "warning",
      message: `the client's clock looks about ${skew} s ahead (validBefore is further out than maxTimeoutSeconds allows)`,
    });
  }
}

/** Whether the signature is a 65-byte EOA signature; says what it is otherwise. */
function isEoaSignature(signature: string, findings: Finding[]): boolean {
  if (signature.toLowerCase().endsWith(ERC6492_SUFFIX)) {
    findings.push({
      code: "smart_wallet_signature",
      severity: "info",
      message:
        "the signature is an ERC-6492 wrapper (an undeployed smart wallet): the facilitator must support ERC-6492",
    });
    return false;
  }
  if (EOA_SIGNATURE.test(signature)) return true;
  const longer = signature.startsWith("0x") && signature.length > 132;
  findings.push({
    code: longer ? "smart_wallet_signature" : "signature_unparseable",
    severity: longer ? "info" : "error",
    message: `the signature is ${signature.length} characters, not a 65-byte EOA signature`,
  });
  return false;
}

/** Recovers the EOA signature under the challenge's EIP-712 domain, and under the token's own when they differ. */
async function checkEip712Signature(
  authorization: Authorization,
  signature: string,
  requirement: JsonObject,
  findings: Finding[],
  result: CrossCheck,
): Promise<void> {
  const network = networkByCaip2(String(requirement.network));
  const chainId = network?.chainId ?? Number(String(requirement.network).split(":")[1]);
  const extra = isObject(requirement.extra) ? requirement.extra : {};
  const asset = String(requirement.asset);
  if (!Number.isInteger(chainId) || typeof extra.name !== "string" || typeof extra.version !== "string")
    return;
  const claimed = { name: extra.name, version: extra.version, chainId, verifyingContract: asset };
  const real =
    network?.usdc.eip712 && network.usdc.address.toLowerCase() === asset.toLowerCase()
      ? { ...network.usdc.eip712, chainId, verifyingContract: asset }
      : undefined;
  const withClaimed = await recovers(authorization, signature, claimed);
  const domainsDiffer =
    real !== undefined && (real.name !== claimed.name || real.version !== claimed.version);
  if (withClaimed) {
    result.signature = "recovers_to_payer";
    if (domainsDiffer && real) {
      findings.push({
        code: "eip712_domain_mismatch",
        severity: "error",
        message: `the payment is signed over the challenge's domain "${claimed.name}" v${claimed.version}, but the token verifies signatures as "${real.name}" v${real.version}: the seller's extra is wrong`,
      });
    }
    return;
  }
  if (real && domainsDiffer && (await recovers(authorization, signature, real))) {
    result.signature = "recovers_to_payer";
    return;
  }
  result.signature = "does_not_recover";
  findings.push({
    code: "signature_invalid",
    severity: "error",
    message:
      "the EIP-712 signature does not recover to authorization.from under the token's domain: it was made by another key or over other values",
  });
}

async function checkEvmAuthorization(
  inner: JsonObject,
  requirement: JsonObject,
  now: number,
  findings: Finding[],
  result: CrossCheck,
): Promise<void> {
  const authorization = readAuthorization(inner.authorization);
  if (!authorization) {
    findings.push({
      code: "payload_malformed",
      severity: "error",
      message: "payload.authorization is missing or incomplete",
    });
    return;
  }
  result.payer = authorization.from;
  checkTerms(authorization, requirement, findings);
  checkValidity(authorization, requirement, now, findings, result);
  const signature = typeof inner.signature === "string" ? inner.signature : "";
  if (!isEoaSignature(signature, findings)) return;
  await checkEip712Signature(authorization, signature, requirement, findings, result);
}

/** The decoded payment payload, with findings on its encoding and version; undefined when it cannot be read. */
function readPayment(paymentText: string, findings: Finding[]): JsonObject | undefined {
  const decoded = decodeJsonText(paymentText);
  if (!decoded.ok) {
    findings.push({
      code: "payload_malformed",
      severity: "error",
      message: `the payment cannot be decoded: ${decoded.error}`,
    });
    return undefined;
  }
  if (decoded.encoding === "base64url") {
    findings.push({
      code: "payload_malformed",
      severity: "error",
      message: "the payment is base64url; servers expect standard base64",
    });
  }
  const payload = decoded.value;
  if (payload.x402Version !== 2) {
    findings.push({
      code: "x402_version_mismatch",
      severity: "error",
      message: `the payment says x402Version ${JSON.stringify(payload.x402Version ?? null)}; v2 sellers expect 2 in PAYMENT-SIGNATURE`,
    });
  }
  return payload;
}

/** A Solana transaction or a Permit2 payment: only its requirement is cross-checked. */
function notEvmAuthorization(inner: JsonObject, findings: Finding[]): boolean {
  const kind =
    typeof inner.transaction === "string"
      ? "a Solana transaction"
      : "permit2Authorization" in inner
        ? "a Permit2 payment"
        : undefined;
  if (!kind) return false;
  findings.push({
    code: "not_cross_checked",
    severity: "info",
    message: `${kind}: only the requirement was cross-checked`,
  });
  return true;
}

/** Cross-checks a payment payload (PAYMENT-SIGNATURE value or its JSON) against the challenge's accepts. */
export async function crossCheck(
  paymentText: string | undefined,
  accepts: unknown[] | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<CrossCheck> {
  const result: CrossCheck = {
    performed: false,
    findings: [],
    payer: null,
    signature: "not_checked",
    clockSkewSeconds: null,
  };
  if (paymentText === undefined) return result;
  result.performed = true;
  const payload = readPayment(paymentText, result.findings);
  if (!payload) return result;
  const accepted = isObject(payload.accepted) ? payload.accepted : undefined;
  if (!accepted) {
    result.findings.push({
      code: "payload_malformed",
      severity: "error",
      message: "the payment has no accepted requirement",
    });
    return result;
  }
  const requirement = accepts ? compareAccepted(accepted, accepts, result.findings) : accepted;
  const inner = isObject(payload.payload) ? payload.payload : {};
  if (notEvmAuthorization(inner, result.findings)) return result;
  await checkEvmAuthorization(inner, requirement ?? accepted, nowSeconds, result.findings, result);
  return result;
}
