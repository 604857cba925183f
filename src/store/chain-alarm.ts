// What an alarm says of uncertain rows (exact settlements, batch-settlement operations) whose last on-chain check
// could not reach the RPC: how many, on which networks, and the newest error.

export interface UnreachableChecks {
  unreachable: number;
  networks: string[];
  lastError: string | null;
}

/** `rows` newest check first, each with its network and the error of its last check. */
export function unreachableChecks(
  rows: Array<{ network: string; chain_error: string | null }>,
): UnreachableChecks {
  return {
    unreachable: rows.length,
    networks: [...new Set(rows.map((r) => r.network))].sort(),
    lastError: rows[0]?.chain_error ?? null,
  };
}
