// Reading values of unknown shape (parsed JSON, a thrown value) the one way the whole service does.

/** A parsed JSON object, its fields still unchecked. */
export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a thrown value says: an Error's message, anything else as a string. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
