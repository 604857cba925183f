// The facilitator client of the paid path: the SDK's HTTPFacilitatorClient (its URL, timeout, auth headers and
// error types), with verify and settle sent over a keep-alive undici Pool instead of `fetch`. The pool opens as
// many connections as calls are in flight (a cap queued buyers behind slow settlements: with verify taking
// 200 ms and settle 1 s, 16 connections held one node to about 19 paid calls a second, against about 50
// uncapped). Per call, fetch builds WHATWG Request/Headers/Response objects and the SDK re-parses and re-encodes
// both payloads (`toJsonSafe`); here the answer is read whole through the pool's handler interface
// (pool-exchange.ts), a payload's JSON (13 KB: it echoes the 402's extensions) and the requirements' are
// encoded once (json-once.ts; the ledger row stores the requirements' same bytes) and the request body is one
// string. Answers are checked as the SDK checks them (@x402/core 2.27.0 HTTPFacilitatorClient: a 2xx with
// `isValid` / `success`+`transaction`+`network`, VerifyError/SettleError for a non-2xx carrying a verdict, an
// Error otherwise, FacilitatorTimeoutError at the deadline). A redirect is left to the SDK's own fetch path.
import { FacilitatorResponseError, FacilitatorTimeoutError, HTTPFacilitatorClient } from "@x402/core/server";
import {
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  VerifyError,
  type VerifyResponse,
} from "@x402/core/types";
import { Pool } from "undici";
import { jsonOnce } from "../../json-once.ts";
import { FacilitatorNotReachedError, neverReached } from "./facilitators/not-reached.ts";
import { type Exchanged, ExchangeTimeout, exchange } from "./pool-exchange.ts";

type Operation = "verify" | "settle";

const KEEP_ALIVE_MS = 30_000;

function excerpt(text: string, limit = 200): string {
  const compact = text.trim().replace(/\s+/g, " ");
  if (!compact) return "<empty response>";
  return compact.length <= limit ? compact : `${compact.slice(0, limit - 3)}...`;
}

function isAbort(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 10 && current && typeof current === "object"; depth++) {
    const name = (current as { name?: unknown }).name;
    if (name === "TimeoutError" || name === "AbortError") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** null → undefined for the optional fields, as the SDK's schemas do. */
function withoutNulls<T extends Record<string, unknown>>(data: T, fields: readonly string[]): T {
  for (const field of fields) if (data[field] === null) (data as Record<string, unknown>)[field] = undefined;
  return data;
}

const OPTIONAL_VERIFY = ["invalidReason", "invalidMessage", "payer", "extensions", "extra"] as const;
const OPTIONAL_SETTLE = ["errorReason", "errorMessage", "payer", "amount", "extensions", "extra"] as const;

function validVerify(data: unknown): data is VerifyResponse {
  return !!data && typeof data === "object" && typeof (data as VerifyResponse).isValid === "boolean";
}

function validSettle(data: unknown): data is SettleResponse {
  const d = data as SettleResponse | null;
  return (
    !!d &&
    typeof d === "object" &&
    typeof d.success === "boolean" &&
    typeof d.transaction === "string" &&
    typeof d.network === "string"
  );
}

function extensionResponses(header: string | undefined): Record<string, unknown> | undefined {
  if (typeof header !== "string" || !header) return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
    return decoded && typeof decoded === "object" && !Array.isArray(decoded) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/** Answers a facilitator request without a socket: the embedded facilitator of a service that does not listen. */
export type InProcessFacilitator = (request: Request) => Promise<Response>;

export class PooledFacilitatorClient extends HTTPFacilitatorClient {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #inProcess: InProcessFacilitator | undefined;

  constructor(
    config: ConstructorParameters<typeof HTTPFacilitatorClient>[0],
    inProcess?: InProcessFacilitator,
  ) {
    super(config);
    this.#inProcess = inProcess;
    const base = new URL(this.url);
    this.#basePath = base.pathname.replace(/\/+$/, "");
    this.#pool = new Pool(base.origin, {
      connections: null,
      keepAliveTimeout: KEEP_ALIVE_MS,
      keepAliveMaxTimeout: KEEP_ALIVE_MS,
    });
  }

  override async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    const answer = await this.#call("verify", payload, requirements);
    return answer ? (answer as VerifyResponse) : super.verify(payload, requirements);
  }

  override async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    const answer = await this.#call("settle", payload, requirements);
    return answer ? (answer as SettleResponse) : super.settle(payload, requirements);
  }

  override async getSupported(): ReturnType<HTTPFacilitatorClient["getSupported"]> {
    if (!this.#inProcess) return super.getSupported();
    const response = await this.#inProcess(new Request(`${this.url}/supported`));
    if (!response.ok) throw new Error(`Facilitator getSupported failed (${response.status})`);
    return (await response.json()) as Awaited<ReturnType<HTTPFacilitatorClient["getSupported"]>>;
  }

  /** Read-only, for the operator's figures: requests waiting for a connection (pending) and under way (running). */
  queue(): { pending: number; running: number } {
    const { pending, running } = this.#pool.stats;
    return { pending, running };
  }

  /** Closes the pool's connections (service shutdown). */
  close(): Promise<void> {
    return this.#pool.close();
  }

  #body(payload: PaymentPayload, requirements: PaymentRequirements): string {
    return `{"x402Version":${jsonOnce(payload.x402Version)},"paymentPayload":${jsonOnce(payload)},"paymentRequirements":${jsonOnce(requirements)}}`;
  }

  /** The request over the pool, or to the embedded facilitator; ExchangeTimeout past the client's timeout. */
  async #send(request: { method: "POST"; path: string; headers: Record<string, string>; body: string }) {
    if (!this.#inProcess) return exchange(this.#pool, request, "extension-responses", this.timeoutMs);
    const { path, ...init } = request;
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await this.#inProcess(new Request(new URL(path, this.url), { ...init, signal }));
      const header = response.headers.get("extension-responses") ?? undefined;
      return { status: response.status, header, text: await response.text() };
    } catch (error) {
      if (signal.aborted && isAbort(error)) throw new ExchangeTimeout(this.timeoutMs);
      throw error;
    }
  }

  /** One verify or settle; undefined when the facilitator redirects (the SDK's fetch then follows it). */
  async #call(
    operation: Operation,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<VerifyResponse | SettleResponse | undefined> {
    const { headers: auth } = await this.createAuthHeaders(operation);
    let answer: Exchanged;
    try {
      answer = await this.#send({
        method: "POST",
        path: `${this.#basePath}/${operation}`,
        headers: { "content-type": "application/json", ...auth },
        body: this.#body(payload, requirements),
      });
    } catch (error) {
      if (error instanceof ExchangeTimeout) throw new FacilitatorTimeoutError(operation, this.timeoutMs);
      if (neverReached(error)) throw new FacilitatorNotReachedError(operation, error);
      throw error;
    }
    const { status, text } = answer;
    const extensions = extensionResponses(answer.header);
    if (status >= 300 && status < 400) return undefined;
    const ok = status >= 200 && status < 300;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      if (ok)
        throw new FacilitatorResponseError(
          `Facilitator ${operation} returned invalid JSON: ${excerpt(text)}`,
        );
      throw new Error(`Facilitator ${operation} failed (${status}): ${excerpt(text)}`);
    }
    if (!ok) {
      if (operation === "verify" && data && typeof data === "object" && "isValid" in data) {
        throw new VerifyError(status, data as VerifyResponse);
      }
      if (operation === "settle" && data && typeof data === "object" && "success" in data) {
        throw new SettleError(status, data as SettleResponse);
      }
      throw new Error(`Facilitator ${operation} failed (${status}): ${excerpt(JSON.stringify(data))}`);
    }
    const valid = operation === "verify" ? validVerify(data) : validSettle(data);
    if (!valid)
      throw new FacilitatorResponseError(`Facilitator ${operation} returned invalid data: ${excerpt(text)}`);
    const result = withoutNulls(
      data as Record<string, unknown>,
      operation === "verify" ? OPTIONAL_VERIFY : OPTIONAL_SETTLE,
    ) as unknown as VerifyResponse | SettleResponse;
    if (extensions) (result as { extensionResponses?: unknown }).extensionResponses = extensions;
    return result;
  }
}
