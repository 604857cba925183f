// The JSON body of a portal's answer; a maintenance page or proxy error (HTML, sometimes with 200) is an
// upstream failure, never a parse crash.
import { UpstreamError, type UpstreamResponse } from "../../../../upstream/client.ts";
import type { Portal } from "../portal.ts";

export function readJson<T>(portal: Portal, response: UpstreamResponse): T {
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new UpstreamError(
      portal.upstream.name,
      `not JSON from ${response.url} (HTTP ${response.status}): ${response.body.slice(0, 80).replace(/\s+/g, " ")}`,
      response.status,
    );
  }
}

/** The first non-empty string of a value that may be a string or a list of them (piveau's URL lists). */
export function firstString(value: unknown): string | null {
  const list = Array.isArray(value) ? value : [value];
  for (const entry of list) {
    if (typeof entry === "string" && entry.trim() !== "") return entry;
  }
  return null;
}
