// Pulls the failure reason out of whatever the caller pasted as `response`: a facilitator JSON answer, a
// 402 body, a base64 PAYMENT-RESPONSE or PAYMENT-REQUIRED header, "reason: message", an HTTP status line,
// an exception message or an HTML page.
import { isObject, type JsonObject } from "../../../json.ts";
import { decodeJsonText } from "../checkup/challenge.ts";

export interface ExtractedReason {
  /** The reason as the failing party wrote it (a code, or the text before the first ':'), verbatim. */
  raw: string | null;
  /** The human message that came with it. */
  message: string | null;
  httpStatus: number | null;
  /** A settlement answer said success true (true) or false (false). */
  settled: boolean | null;
  transaction: string | null;
  /** Reason strings to look up, most specific first. */
  candidates: string[];
  /** Where the reason came from, for the evidence list. */
  sources: string[];
  /** The text searched for known phrases. */
  text: string;
}

const REASON_FIELDS = ["invalidReason", "errorReason", "reason", "error", "code", "errorCode", "error_code"];
const MESSAGE_FIELDS = ["invalidMessage", "errorMessage", "message", "detail", "error_description"];
const SNAKE_TOKEN = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/gi;
const HEADER_LINE = /^\s*(payment-response|x-payment-response|payment-required)\s*:\s*(\S+)\s*$/gim;
const STATUS_LINE = /^\s*(?:HTTP\/\d(?:\.\d)?\s+)?([1-5]\d\d)\b/;
const STATUS_WORD = /\bstatus(?:\s*code)?\s*[:=]?\s*([1-5]\d\d)\b/i;
const MAX_TEXT = 20_000;

function push(found: ExtractedReason, candidate: string): void {
  const value = candidate.trim();
  if (value && !found.candidates.includes(value)) found.candidates.push(value);
}

function readObject(value: JsonObject, found: ExtractedReason, source: string, depth = 0): void {
  if (depth > 3) return;
  found.sources.push(source);
  if (typeof value.success === "boolean") {
    found.settled = value.success;
    if (typeof value.transaction === "string" && value.transaction !== "")
      found.transaction = value.transaction;
  }
  for (const key of REASON_FIELDS) {
    const field = value[key];
    if (typeof field === "string" && field.trim() !== "") {
      push(found, field);
      found.raw ??= field.trim();
    } else if (isObject(field)) {
      readObject(field, found, `${source}.${key}`, depth + 1);
    }
  }
  for (const key of MESSAGE_FIELDS) {
    const field = value[key];
    if (typeof field === "string" && field.trim() !== "") found.message ??= field.trim();
  }
  for (const key of ["status", "statusCode", "httpStatus"]) {
    const field = value[key];
    if (typeof field === "number" && field >= 100 && field <= 599) found.httpStatus ??= field;
  }
}

/** The first {...} block of a text that parses as a JSON object (an error body inside a log line). */
function embeddedObject(text: string): JsonObject | undefined {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  const decoded = decodeJsonText(text.slice(start, end + 1));
  return decoded.ok ? decoded.value : undefined;
}

export function extractReason(response: string): ExtractedReason {
  const text = response.trim().slice(0, MAX_TEXT);
  const found: ExtractedReason = {
    raw: null,
    message: null,
    httpStatus: null,
    settled: null,
    transaction: null,
    candidates: [],
    sources: [],
    text,
  };
  const status = STATUS_LINE.exec(text) ?? STATUS_WORD.exec(text);
  if (status) found.httpStatus = Number(status[1]);

  for (const match of text.matchAll(HEADER_LINE)) {
    const decoded = decodeJsonText(match[2] as string);
    if (decoded.ok) readObject(decoded.value, found, `${(match[1] as string).toUpperCase()} header`);
  }
  const whole = decodeJsonText(text);
  if (whole.ok) {
    readObject(whole.value, found, whole.encoding === "json" ? "JSON body" : "base64-encoded header");
  } else {
    const inner = embeddedObject(text);
    if (inner) readObject(inner, found, "JSON in the text");
  }

  if (found.raw === null) {
    const firstLine = text.split("\n").find((line) => line.trim() !== "" && !STATUS_LINE.test(line)) ?? "";
    const split = /^\s*(?:error:\s*)?([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\s*(?::\s*(.*))?$/s.exec(
      firstLine,
    );
    if (split) {
      found.raw = split[1] as string;
      push(found, found.raw);
      if (split[2]) found.message ??= split[2].trim();
      found.sources.push("reason: message text");
    } else if (firstLine.trim() !== "") {
      found.message ??= firstLine.trim().slice(0, 500);
    }
  }
  for (const token of text.match(SNAKE_TOKEN) ?? []) push(found, token);
  if (found.sources.length === 0) found.sources.push("free text");
  return found;
}

/** A stable key for an unknown reason: the reason itself, or the first line of the text. */
export function unknownReasonKey(extracted: ExtractedReason): string {
  const key = extracted.raw ?? extracted.message ?? extracted.text.split("\n")[0] ?? "";
  return key.trim().slice(0, 300) || "(empty response)";
}
