// POST /admin/channels/refund: the operator refunds what a batch-settlement channel holds beyond what its
// vouchers charged (the scheme's cooperative refund, signed by this seller's receiver authorizer). JSON
// { "network": "eip155:8453", "channel": "0x…" } or the admin page's form; answered with the operation.
import type { Context } from "hono";
import { errorResponse } from "../errors.ts";
import { jsonResponse } from "../responses.ts";
import type { BatchOperation } from "../store/batch-operations.ts";
import { messagePage } from "./page.ts";

const CHANNEL_ID = /^0x[0-9a-fA-F]{64}$/;
const NETWORK = /^eip155:\d{1,12}$/;

export type ChannelRefunder = (network: string, channelId: string) => Promise<BatchOperation>;

type Input =
  | { ok: true; network: string; channel: string }
  | { ok: false; parameter: string; message: string };

function parseInput(body: unknown): Input {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.network !== "string" || !NETWORK.test(b.network))
    return { ok: false, parameter: "network", message: "network: an EVM network such as eip155:8453" };
  if (typeof b.channel !== "string" || !CHANNEL_ID.test(b.channel))
    return { ok: false, parameter: "channel", message: "channel: a channel id, 0x and 64 hex digits" };
  return { ok: true, network: b.network, channel: b.channel.toLowerCase() };
}

/** Runs the refund once the caller is authorised (the admin routes check that first). */
export async function channelRefund(
  c: Context,
  form: boolean,
  refunder: ChannelRefunder | undefined,
  page: (status: number, body: string) => Response,
): Promise<Response> {
  const fail = (
    status: number,
    code: "invalid_parameter" | "not_found" | "payments_starting",
    message: string,
    extra = {},
  ) =>
    form ? page(status, messagePage("Channel not refunded", message)) : errorResponse(code, message, extra);
  if (!refunder) return fail(503, "payments_starting", "batch-settlement is not served by this node (yet).");
  let body: unknown;
  try {
    body = form ? await c.req.parseBody() : await c.req.json();
  } catch {
    return fail(400, "invalid_parameter", 'body: expected JSON { "network": "eip155:…", "channel": "0x…" }', {
      parameter: "body",
    });
  }
  const input = parseInput(body);
  if (!input.ok) return fail(400, "invalid_parameter", input.message, { parameter: input.parameter });
  let operation: BatchOperation;
  try {
    operation = await refunder(input.network, input.channel);
  } catch (error) {
    return fail(404, "not_found", error instanceof Error ? error.message : String(error));
  }
  if (form)
    return page(
      operation.state === "done" ? 200 : 502,
      messagePage("Channel refund", JSON.stringify(operation)),
    );
  return jsonResponse(operation.state === "done" ? 201 : 502, { operation }, { "cache-control": "no-store" });
}
