// What POST /admin/refunds/<id> accepts: the refund's transaction on the payment's chain and an optional note.
const EVM_TRANSACTION = /^0x[0-9a-fA-F]{64}$/;
/** A Solana transaction signature: 64 bytes in base58. */
const SOLANA_TRANSACTION = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;
const MAX_NOTE_LENGTH = 500;

interface RefundInput {
  transaction: string;
  note: string | null;
}

type Checked<T> = { ok: true; value: T } | { ok: false; parameter: string; message: string };

export function parseLedgerId(value: string): Checked<number> {
  const id = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(id)
    ? { ok: true, value: id }
    : { ok: false, parameter: "id", message: `id: expected a ledger row number, got "${value}"` };
}

export function parseRefundInput(body: unknown): Checked<RefundInput> {
  if (!body || typeof body !== "object" || Array.isArray(body))
    return { ok: false, parameter: "body", message: 'body: expected a JSON object { "transaction": "0x…" }' };
  const { transaction, note } = body as Record<string, unknown>;
  if (typeof transaction !== "string" || transaction.trim() === "")
    return {
      ok: false,
      parameter: "transaction",
      message: "transaction: required, the refund's transaction hash",
    };
  const tx = transaction.trim();
  if (!EVM_TRANSACTION.test(tx) && !SOLANA_TRANSACTION.test(tx)) {
    return {
      ok: false,
      parameter: "transaction",
      message: "transaction: expected a 0x-prefixed 32-byte hex hash (EVM) or a base58 signature (Solana)",
    };
  }
  if (note !== undefined && note !== null && typeof note !== "string")
    return { ok: false, parameter: "note", message: "note: expected a string" };
  const text = typeof note === "string" ? note.trim() : "";
  if (text.length > MAX_NOTE_LENGTH)
    return { ok: false, parameter: "note", message: `note: at most ${MAX_NOTE_LENGTH} characters` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(text.replace(/[\n\t]/g, " ")))
    return { ok: false, parameter: "note", message: "note: control characters are not allowed" };
  return { ok: true, value: { transaction: tx, note: text || null } };
}

/** The transaction must be of the payment's chain: a hex hash on EVM networks, a signature on Solana. */
export function transactionFitsNetwork(transaction: string, network: string): Checked<string> {
  const evm = network.startsWith("eip155:");
  const solana = network.startsWith("solana:");
  if ((evm && !EVM_TRANSACTION.test(transaction)) || (solana && !SOLANA_TRANSACTION.test(transaction))) {
    return {
      ok: false,
      parameter: "transaction",
      message: `transaction: not a ${evm ? "0x-prefixed EVM transaction hash" : "Solana signature"}, which ${network} uses`,
    };
  }
  return { ok: true, value: transaction };
}
