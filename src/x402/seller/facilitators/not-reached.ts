// The one facilitator failure after which a settlement may go to another facilitator: the connection could not
// be made, so the request was never written. A reset, a timeout or a 5xx after the request left may follow a
// submitted transfer; those stay with the facilitator that had them (and, undecided, with the chain).

/** Connection errors raised before a byte of the request was written (Node's net/dns, undici's connector). */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** A verify or settle that provably never reached the facilitator. */
export class FacilitatorNotReachedError extends Error {
  readonly operation: string;
  constructor(operation: string, cause: unknown) {
    super(`Facilitator ${operation} not sent: ${(cause as { code?: string })?.code ?? String(cause)}`, {
      cause,
    });
    this.name = "FacilitatorNotReachedError";
    this.operation = operation;
  }
}

/** The error (or each error of an AggregateError, as a dual-stack connect gives) is a failed connection. */
export function neverReached(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && NOT_CONNECTED.has(code)) return true;
  const errors = (error as { errors?: unknown } | null)?.errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(neverReached);
}
