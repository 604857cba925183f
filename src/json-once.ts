// The JSON of an object sent or stored several times, encoded once: a paid call's payment payload goes to the
// facilitator twice (verify, settle), and its requirements, shared by every call at one price, to the
// facilitator and into each ledger row. These objects are never changed after they are decoded or built, so
// the first encoding stays true. Bigints become strings (a payload
// decoded from JSON has none, so the native path is tried first).
const encoded = new WeakMap<object, string>();

function jsonSafe(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v));
  }
}

export function jsonOnce(value: unknown): string {
  if (value === null || typeof value !== "object") return jsonSafe(value);
  let json = encoded.get(value);
  if (json === undefined) {
    json = jsonSafe(value);
    encoded.set(value, json);
  }
  return json;
}
