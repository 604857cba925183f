// Used by this family's tests only: the recorded label page and no-match answer.
import fs from "node:fs";
import path from "node:path";
import { OPENFDA_RECORDINGS_DIR } from "./index.ts";

export { type LoopbackUpstream, startLoopbackUpstream } from "../../../test/family-harness.ts";

export const IBUPROFEN_PAGE = fs.readFileSync(
  path.join(OPENFDA_RECORDINGS_DIR, "label-ibuprofen.json"),
  "utf8",
);
export function recordedBody(name: string): string {
  const file = path.join(OPENFDA_RECORDINGS_DIR, `${name}.recording.json`);
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { response: { body: string } }).response.body;
}

export const NOT_FOUND_BODY = '{"error":{"code":"NOT_FOUND","message":"No matches found!"}}';
