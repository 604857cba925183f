// What one POST /mcp costs against the unpaid limit: each JSON-RPC message counts (every element of a batch:
// initialize, tools/list, notifications, tool calls), except tool calls carrying a payment, which the paid
// route counts if the payment does not verify. A batch has at most MAX_BATCH messages.

import { isObject } from "../json.ts";
import { PAYMENT_META_KEY } from "./tool-outcome.ts";

export const MAX_BATCH = 20;

type MessageCount = { units: number } | { tooMany: number };

function carriesPayment(message: unknown): boolean {
  if (!isObject(message) || message.method !== "tools/call" || !isObject(message.params)) return false;
  const meta = message.params._meta;
  return isObject(meta) && meta[PAYMENT_META_KEY] !== undefined;
}

/** A POST body as read once: its text, and its JSON when it parses. */
export interface ReadBody {
  text: string;
  json?: { value: unknown };
}

export function readBody(text: string): ReadBody {
  try {
    return { text, json: { value: JSON.parse(text) } };
  } catch {
    return { text };
  }
}

/** The unpaid messages of a POST body (one for a body that is not JSON: the SDK answers it with an error). */
export function countMessages(body: ReadBody): MessageCount {
  if (!body.json) return { units: 1 };
  const parsed = body.json.value;
  if (!Array.isArray(parsed)) return { units: carriesPayment(parsed) ? 0 : 1 };
  if (parsed.length > MAX_BATCH) return { tooMany: parsed.length };
  return { units: Math.max(1, parsed.filter((m) => !carriesPayment(m)).length) };
}
