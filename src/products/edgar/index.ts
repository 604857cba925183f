// The EDGAR family: SEC company profiles, filings, financial statements derived from XBRL, and company search,
// refreshed daily for a configured list of companies and fetched on request for any other.
import path from "node:path";
import type { FamilyFactory } from "../../catalog/product.ts";
import { edgarCompany } from "./company.ts";
import { EDGAR_MIGRATIONS } from "./edgar-store.ts";
import { edgarFiling } from "./filing.ts";
import { edgarFinancials } from "./financials.ts";
import { edgarJobs } from "./jobs.ts";
import { secContactUnavailable, secPreflight } from "./preflight.ts";
import { edgarSearch } from "./search.ts";
import { readEdgarSettings } from "./settings.ts";
import { edgarStatus } from "./status.ts";
import { edgarWarmers } from "./warmers.ts";

export const EDGAR_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const edgarFamily: FamilyFactory = (config) => {
  const settings = readEdgarSettings(config);
  const warmers = edgarWarmers(settings);
  return {
    name: "edgar",
    unavailable: secContactUnavailable(config, settings.userAgent),
    preflight: secPreflight(settings.userAgent),
    products: [
      edgarCompany,
      edgarFiling(settings),
      edgarFinancials,
      edgarSearch,
      edgarStatus(settings, warmers),
    ],
    warmers,
    jobs: edgarJobs(settings),
    recordingsDir: EDGAR_RECORDINGS_DIR,
    migrations: EDGAR_MIGRATIONS,
  };
};
