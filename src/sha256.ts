import { createHash } from "node:crypto";

/** Hex SHA-256 of a UTF-8 string (request hashes, response-body digests, payment identities). */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
