import { createHash } from "node:crypto";

/** Hex SHA-256 of bytes as received (the core helper hashes UTF-8 strings). */
export function sha256Bytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
