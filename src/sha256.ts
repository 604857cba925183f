import { hash } from "node:crypto";

/** Hex SHA-256 of a UTF-8 string (request hashes, response-body digests, payment identities). */
export function sha256(text: string): string {
  return hash("sha256", text, "hex");
}
