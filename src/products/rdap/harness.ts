// Used by this family's tests only.
import fs from "node:fs";
import path from "node:path";
import { openFamilyContext } from "../../../test/family-harness.ts";
import { RDAP_RECORDINGS_DIR, rdapFamily } from "./index.ts";

export function openRdapContext(env: Record<string, string> = {}) {
  return openFamilyContext(rdapFamily, env);
}

export function recordedBody(name: string): string {
  const recording = JSON.parse(
    fs.readFileSync(path.join(RDAP_RECORDINGS_DIR, `${name}.recording.json`), "utf8"),
  );
  return recording.response.body as string;
}
