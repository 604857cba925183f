// Reading a seller's payment request: the v2 PAYMENT-REQUIRED header (standard base64 JSON), and what
// sellers send instead (base64url, raw JSON, a v1 body). Nothing here throws on bad input.
import { isObject, type JsonObject } from "../../../json.ts";

const STANDARD_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE_BASE64 = /^[A-Za-z0-9_-]*={0,2}$/;

type Encoding = "base64" | "base64url" | "json";

type DecodedText = { ok: true; value: JsonObject; encoding: Encoding } | { ok: false; error: string };

function parseObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A header value or pasted text: base64 JSON (either alphabet) or JSON itself. */
export function decodeJsonText(raw: string): DecodedText {
  const text = raw.trim();
  if (text === "") return { ok: false, error: "empty" };
  if (text.startsWith("{")) {
    const value = parseObject(text);
    return value ? { ok: true, value, encoding: "json" } : { ok: false, error: "not valid JSON" };
  }
  const compact = text.replace(/\s+/g, "");
  if (STANDARD_BASE64.test(compact)) {
    const value = parseObject(Buffer.from(compact, "base64").toString("utf8"));
    if (value) return { ok: true, value, encoding: "base64" };
  }
  if (URL_SAFE_BASE64.test(compact)) {
    const value = parseObject(Buffer.from(compact, "base64url").toString("utf8"));
    if (value) return { ok: true, value, encoding: "base64url" };
  }
  return { ok: false, error: "neither base64-encoded JSON nor JSON" };
}

/** What a 402 offered, however it offered it. */
export type Challenge =
  | { kind: "header"; paymentRequired: JsonObject; encoding: Encoding; body?: JsonObject }
  | { kind: "unreadable_header"; error: string; body?: JsonObject }
  | { kind: "v1_body"; paymentRequired: JsonObject }
  | { kind: "v2_body_only"; paymentRequired: JsonObject }
  | { kind: "none"; body?: JsonObject };

/** The challenge of a seller's 402 from its PAYMENT-REQUIRED header and body. */
export function readChallenge(header: string | null, bodyText: string): Challenge {
  const body = parseObject(bodyText);
  if (header !== null && header.trim() !== "") {
    const decoded = decodeJsonText(header);
    if (!decoded.ok) return { kind: "unreadable_header", error: decoded.error, ...(body ? { body } : {}) };
    return {
      kind: "header",
      paymentRequired: decoded.value,
      encoding: decoded.encoding,
      ...(body ? { body } : {}),
    };
  }
  if (body && Array.isArray(body.accepts)) {
    return body.x402Version === 1 ||
      (body.accepts as unknown[]).some((a) => isObject(a) && "maxAmountRequired" in a)
      ? { kind: "v1_body", paymentRequired: body }
      : { kind: "v2_body_only", paymentRequired: body };
  }
  return { kind: "none", ...(body ? { body } : {}) };
}

/** A challenge the caller pasted (`challenge` of /v1/doctor/payment): the header value, or a 402 body. */
export function readPastedChallenge(raw: string): Challenge {
  const decoded = decodeJsonText(raw);
  if (!decoded.ok) return { kind: "unreadable_header", error: decoded.error };
  if (decoded.encoding !== "json") {
    return { kind: "header", paymentRequired: decoded.value, encoding: decoded.encoding };
  }
  const fromBody = readChallenge(null, JSON.stringify(decoded.value));
  // Decoded v2 header content pasted as JSON reads like a body-only v2 challenge.
  return fromBody.kind === "v2_body_only"
    ? { kind: "header", paymentRequired: fromBody.paymentRequired, encoding: "json" }
    : fromBody;
}
