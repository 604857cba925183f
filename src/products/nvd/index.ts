// The NVD family: CVE records from the NIST National Vulnerability Database (API 2.0), synced by
// last-modified windows and searchable by keyword over the recent window, joined with CISA's
// known-exploited catalogue.
import path from "node:path";
import type { FamilyFactory } from "../../catalog/product.ts";
import { coverageProduct } from "./coverage.ts";
import { cveProduct } from "./cve.ts";
import { CVE_LOOKUP_QUEUE, cveLookupJob } from "./lookup.ts";
import { nvdPreflight } from "./preflight.ts";
import {
  createNvdRuntime,
  NVD_SYNC_QUEUE,
  nvdWarmers,
  searchIndexTask,
  syncContinuationJob,
} from "./runtime.ts";
import { nvdSettings } from "./settings.ts";
import { statusProduct } from "./status.ts";
import { NVD_MIGRATIONS } from "./tables.ts";

export const NVD_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const nvdFamily: FamilyFactory = (config) => {
  const runtime = createNvdRuntime(nvdSettings(config.env));
  return {
    name: "nvd",
    preflight: nvdPreflight(runtime.settings),
    products: [cveProduct(runtime), coverageProduct(runtime), statusProduct(runtime)],
    warmers: nvdWarmers(runtime),
    jobs: {
      [CVE_LOOKUP_QUEUE]: cveLookupJob(runtime.settings),
      [NVD_SYNC_QUEUE]: syncContinuationJob(runtime),
    },
    background: [searchIndexTask(runtime)],
    recordingsDir: NVD_RECORDINGS_DIR,
    migrations: NVD_MIGRATIONS,
  };
};
