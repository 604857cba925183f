// For tests: the parsed body of one of this family's recordings.
import fs from "node:fs";
import path from "node:path";
import type { RecordingFile } from "../../../upstream/recordings.ts";
import { COMPANIES_RECORDINGS_DIR } from "./paths.ts";

export function recordedJson<T>(name: string): T {
  const file = JSON.parse(
    fs.readFileSync(path.join(COMPANIES_RECORDINGS_DIR, `${name}.recording.json`), "utf8"),
  ) as RecordingFile;
  return JSON.parse(file.response.body ?? "") as T;
}
