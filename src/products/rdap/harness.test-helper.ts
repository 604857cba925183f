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
  const file = recording.response.bodyFile as string | undefined;
  return file
    ? fs.readFileSync(path.join(RDAP_RECORDINGS_DIR, file), "utf8")
    : (recording.response.body as string);
}
