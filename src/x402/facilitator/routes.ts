// The local facilitator over the x402 facilitator HTTP API (POST /verify, POST /settle, GET /supported),
// answering loopback callers only.
import { getConnInfo } from "@hono/node-server/conninfo";
import type { x402Facilitator } from "@x402/core/facilitator";
import { PaymentPayloadV2Schema, PaymentRequirementsV2Schema } from "@x402/core/schemas";
import type {
  Network,
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from "@x402/core/types";
import { BATCH_SETTLEMENT_SCHEME } from "@x402/evm";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ErrorCode } from "../../errors.ts";
import { errorText, isObject } from "../../json.ts";
import { UPTO, uptoPayloadProblem } from "../shared/upto-payload.ts";
import { batchPayloadProblem } from "./batch-payload.ts";
import { eip3009PayloadProblem, evmRequirementsProblem, isPermit2Payload, REFUSALS } from "./facilitator.ts";
import type { JsonRpc } from "./json-rpc.ts";

const MAX_BODY_BYTES = 64 * 1024;

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped IPv6 forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === "::1" || address === "0:0:0:0:0:0:0:1";
}

/**
 * The caller's address, or undefined when the request did not arrive over a socket (in-process
 * `app.request()`), which counts as loopback.
 */
function remoteAddress(c: Context): { socket: boolean; address?: string } {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    return { socket: false };
  }
  return { socket: true, address };
}

type Parsed =
  | { kind: "ok"; payload: PaymentPayload; requirements: PaymentRequirements }
  | { kind: "malformed"; reason: string; message: string }
  | { kind: "version"; message: string };

function parseRequest(body: unknown): Parsed {
  if (!isObject(body))
    return { kind: "malformed", reason: "invalid_payload", message: "body must be a JSON object" };
  const { x402Version, paymentPayload, paymentRequirements } = body;
  if (!Number.isInteger(x402Version)) {
    return { kind: "malformed", reason: "invalid_payload", message: "x402Version must be an integer" };
  }
  if (!isObject(paymentPayload)) {
    return { kind: "malformed", reason: "invalid_payload", message: "paymentPayload must be an object" };
  }
  if (!isObject(paymentRequirements)) {
    return { kind: "malformed", reason: "invalid_payload", message: "paymentRequirements must be an object" };
  }
  if (x402Version !== 2 || paymentPayload.x402Version !== 2) {
    return { kind: "version", message: "the local facilitator speaks x402 version 2 only" };
  }
  const payload = PaymentPayloadV2Schema.safeParse(paymentPayload);
  if (!payload.success) {
    const issue = payload.error.issues[0];
    return {
      kind: "malformed",
      reason: "invalid_payload",
      message: `paymentPayload.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`,
    };
  }
  const requirements = PaymentRequirementsV2Schema.safeParse(paymentRequirements);
  if (!requirements.success) {
    const issue = requirements.error.issues[0];
    return {
      kind: "malformed",
      reason: "invalid_payment_requirements",
      message: `paymentRequirements.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`,
    };
  }
  const req: PaymentRequirements = {
    ...requirements.data,
    network: requirements.data.network as Network,
    extra: requirements.data.extra ?? {},
  };
  const accepted: PaymentRequirements = {
    ...payload.data.accepted,
    network: payload.data.accepted.network as Network,
    extra: payload.data.accepted.extra ?? {},
  };
  const pay: PaymentPayload = {
    x402Version: 2,
    accepted,
    payload: payload.data.payload,
    ...(payload.data.resource ? { resource: payload.data.resource } : {}),
    ...(payload.data.extensions ? { extensions: payload.data.extensions } : {}),
  };
  // The exact and upto schemes on EVM: their payload shapes are known, so a broken one is a malformed request.
  const evm = req.network.startsWith("eip155:");
  const exact = req.scheme === "exact" && evm && !isPermit2Payload(pay.payload);
  const batch = req.scheme === BATCH_SETTLEMENT_SCHEME && evm;
  if (exact || batch || (req.scheme === UPTO && evm)) {
    const payloadProblem = exact
      ? eip3009PayloadProblem(pay.payload)
      : batch
        ? batchPayloadProblem(pay.payload)
        : uptoPayloadProblem(pay.payload);
    if (payloadProblem)
      return { kind: "malformed", reason: "invalid_payload", message: `paymentPayload.${payloadProblem}` };
    const requirementsProblem = evmRequirementsProblem(req);
    if (requirementsProblem) {
      return {
        kind: "malformed",
        reason: "invalid_payment_requirements",
        message: `paymentRequirements.${requirementsProblem}`,
      };
    }
  }
  return { kind: "ok", payload: pay, requirements: req };
}

async function readJson(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    return undefined;
  }
}

/** Why the facilitator threw instead of answering: no scheme or network registered, or something unexpected. */
function thrownReason(
  error: unknown,
  requirements: PaymentRequirements,
  fallback: string,
): { reason: string; message: string } {
  const message = errorText(error);
  if (/No facilitator registered for scheme/.test(message)) {
    return { reason: requirements.scheme === "exact" ? "invalid_network" : "unsupported_scheme", message };
  }
  if (/No facilitator registered for x402 version/.test(message))
    return { reason: "invalid_x402_version", message };
  return { reason: fallback, message };
}

/** One facilitator operation: size limit, request parsing, then the facilitator's own answer or a refusal. */
function operationRoute(
  operation: "verify" | "settle",
  run: (
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ) => Promise<VerifyResponse | SettleResponse>,
) {
  const refuse = REFUSALS[operation];
  return [
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json(refuse("invalid_payload", "body too large"), 413),
    }),
    async (c: Context) => {
      const parsed = parseRequest(await readJson(c));
      if (parsed.kind === "malformed") return c.json(refuse(parsed.reason, parsed.message), 400);
      if (parsed.kind === "version") return c.json(refuse("invalid_x402_version", parsed.message));
      try {
        return c.json(await run(parsed.payload, parsed.requirements));
      } catch (error) {
        const { reason, message } = thrownReason(error, parsed.requirements, `unexpected_${operation}_error`);
        return c.json(refuse(reason, message, parsed.requirements.network));
      }
    },
  ] as const;
}

const RPC_PATH = /\/(solana|evm)-rpc(\/[a-z-]+)?$/;

/** JSON-RPC 2.0 over POST: a body that is not JSON is a parse error, never an exception. */
function rpcRoute(rpc: JsonRpc) {
  return [
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        c.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "body too large" } }, 413),
    }),
    async (c: Context) => {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        return c.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      }
      return c.json(await rpc(body));
    },
  ] as const;
}

/** The pretend chains' nodes of a local facilitator, by network name (the first of each kind is also the default). */
export interface LocalRpcs {
  solana?: ReadonlyMap<string, JsonRpc>;
  evm?: ReadonlyMap<string, JsonRpc>;
}

/** Each node at /<kind>-rpc/<network name>, the first also at /<kind>-rpc. */
function mountRpcs(app: Hono, kind: "solana" | "evm", rpcs: ReadonlyMap<string, JsonRpc> = new Map()): void {
  const [first] = rpcs.values();
  if (first) app.post(`/${kind}-rpc`, ...rpcRoute(first));
  for (const [name, rpc] of rpcs) app.post(`/${kind}-rpc/${name}`, ...rpcRoute(rpc));
}

/**
 * A Hono app serving the facilitator HTTP API for the given facilitator, and the pretend node of each network
 * it settles: Solana's at /solana-rpc, EVM's at /evm-rpc (each also at /<kind>-rpc/<network name>). The facilitator
 * answers loopback callers only (403 otherwise), and requests that came through a proxy (Forwarded /
 * X-Forwarded-For) are refused too, since behind a local reverse proxy every caller would look like loopback.
 * The nodes answer anyone: buyers read the mint, blockhashes and channel state there, and they only read the
 * pretend ledger.
 */
export function localFacilitatorRoutes(facilitator: x402Facilitator, rpcs: LocalRpcs = {}): Hono {
  const app = new Hono();

  app.use("*", async (c, next) => {
    if (RPC_PATH.test(c.req.path)) return next();
    const { socket, address } = remoteAddress(c);
    const proxied = c.req.header("forwarded") !== undefined || c.req.header("x-forwarded-for") !== undefined;
    if ((socket && !isLoopbackAddress(address)) || proxied) {
      return c.json(
        {
          error: "forbidden" satisfies ErrorCode,
          message: "the local facilitator answers loopback callers only",
        },
        403,
      );
    }
    await next();
  });

  app.post("/verify", ...operationRoute("verify", (p, r) => facilitator.verify(p, r)));
  app.post("/settle", ...operationRoute("settle", (p, r) => facilitator.settle(p, r)));
  app.get("/supported", (c) => c.json(facilitator.getSupported()));
  mountRpcs(app, "solana", rpcs.solana);
  mountRpcs(app, "evm", rpcs.evm);

  app.notFound((c) =>
    c.json(
      { error: "not_found" satisfies ErrorCode, message: `no route ${c.req.method} ${c.req.path}` },
      404,
    ),
  );
  app.onError((error, c) =>
    c.json({ error: "internal_error" satisfies ErrorCode, message: error.message }, 500),
  );

  return app;
}
