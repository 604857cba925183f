// The FRED family: economic time series from the St. Louis Fed's FRED API, kept by a warmer for the configured
// series (FRED_SERIES) and fetched on the first request for any other.
import path from "node:path";
import { type FamilyFactory, unavailableWhenLive } from "../../catalog/product.ts";
import { fredCoverageProduct } from "./coverage.ts";
import { SERIES_QUEUE } from "./documents.ts";
import { seriesJobHandler } from "./jobs.ts";
import { fredPreflight } from "./preflight.ts";
import { fredSeriesProduct } from "./series.ts";
import { readFredSettings } from "./settings.ts";
import { fredStatusProduct } from "./status.ts";
import { fredLiveProblem } from "./terms.ts";
import { fredWarmer } from "./warmer.ts";

export const FRED_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const fredFamily: FamilyFactory = (config) => {
  const settings = readFredSettings(config.env);
  return {
    name: "fred",
    unavailable: unavailableWhenLive(config, fredLiveProblem(settings)),
    preflight: fredPreflight(settings),
    products: [fredSeriesProduct(settings), fredCoverageProduct(settings), fredStatusProduct(settings)],
    warmers: [fredWarmer(settings)],
    jobs: { [SERIES_QUEUE]: seriesJobHandler(settings) },
    recordingsDir: FRED_RECORDINGS_DIR,
  };
};
