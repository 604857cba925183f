// Used by this family's tests only.
import fs from "node:fs";
import path from "node:path";
import { openFamilyContext } from "../../../test/family-harness.ts";
import { WEATHER_RECORDINGS_DIR, weatherFamily } from "./index.ts";

export { startRecordedUpstream } from "../npm/harness.test-helper.ts";

export function openWeatherContext(env: Record<string, string> = {}) {
  return openFamilyContext(weatherFamily, env);
}

export function recordedBody(name: string): string {
  const recording = JSON.parse(
    fs.readFileSync(path.join(WEATHER_RECORDINGS_DIR, `${name}.recording.json`), "utf8"),
  );
  return recording.response.body as string;
}
