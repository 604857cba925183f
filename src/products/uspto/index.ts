// The USPTO family: US patent grants from PatentsView's PatentSearch API, by number or by words, cached, fetched
// live on a miss, recent grants warmed daily. Needs PATENTSVIEW_API_KEY in live mode.
import path from "node:path";
import { type AnyProduct, type FamilyFactory, unavailableWhenLive } from "../../catalog/product.ts";
import { optionalKeyCheck } from "../../preflight/live-requirements.ts";
import { httpProbe } from "../../preflight/probe.ts";
import { usptoPatent } from "./patent.ts";
import { readUsptoSettings } from "./settings.ts";
import { usptoCoverage, usptoSchema, usptoStatus } from "./status.ts";
import { idQuery, patentsViewSpec, requestFor } from "./upstream.ts";
import { usptoWarmer } from "./warmer.ts";

export const USPTO_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const usptoFamily: FamilyFactory = (config) => {
  const settings = readUsptoSettings(config.env);
  const paid: AnyProduct[] = [usptoPatent(settings)];
  return {
    name: "uspto",
    unavailable: settings.apiKey
      ? undefined
      : unavailableWhenLive(config, {
          reason:
            "PATENTSVIEW_API_KEY is not set, and PatentsView's PatentSearch API refuses calls without a key.",
          fix: "Set PATENTSVIEW_API_KEY to your PatentSearch API key.",
          docs: "https://search.patentsview.org/docs/",
        }),
    preflight: [
      optionalKeyCheck("patentsview", "PATENTSVIEW_API_KEY", "PatentSearch refuses calls without a key"),
      httpProbe(
        patentsViewSpec(settings),
        {
          ...requestFor(idQuery("11896123"), 1),
          headers: {
            accept: "application/json",
            ...(settings.apiKey ? { "x-api-key": settings.apiKey } : {}),
          },
        },
        { fix: "Check PATENTSVIEW_API_KEY (PatentsView answers 403 to a refused key)." },
      ),
    ],
    products: [...paid, usptoStatus(settings), usptoCoverage, usptoSchema(() => paid)],
    warmers: [usptoWarmer(settings)],
    recordingsDir: USPTO_RECORDINGS_DIR,
  };
};
