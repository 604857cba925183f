// The courts family: US court opinion search through CourtListener (Free Law Project), cached by query,
// with popular queries refreshed daily.
import path from "node:path";
import { type FamilyFactory, jobKind } from "../../catalog/product.ts";
import { courtsPreflight } from "./preflight.ts";
import { courtsSearch } from "./search.ts";
import { readCourtsSettings } from "./settings.ts";
import { courtsStatus } from "./status.ts";
import { COURTS_WARM_RESUME_QUEUE, courtsWarmer, courtsWarmResume } from "./warmer.ts";

export const COURTS_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const courtsFamily: FamilyFactory = (config) => {
  const settings = readCourtsSettings(config.env);
  return {
    name: "courts",
    preflight: courtsPreflight(settings),
    products: [courtsSearch(settings), courtsStatus(settings)],
    warmers: [courtsWarmer(settings)],
    jobs: { [COURTS_WARM_RESUME_QUEUE]: jobKind({ lane: "warm" }, courtsWarmResume(settings)) },
    recordingsDir: COURTS_RECORDINGS_DIR,
  };
};
