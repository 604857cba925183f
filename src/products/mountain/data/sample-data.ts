// The built-in sample dataset (every record flagged sample, every name says "Sample"). In replay mode it is
// loaded into the store on first use, so the whole family answers offline; it is never loaded in live mode.
import path from "node:path";
import type { HandlerContext } from "../../../catalog/product.ts";
import type { Store } from "../../../store/store.ts";
import { ingest } from "./ingest.ts";

export const SAMPLE_DATA_DIR = path.join(import.meta.dirname, "..", "sample-data");

/** Import order: referenced kinds first. */
const SAMPLE_FILES: Array<[kind: string, file: string]> = [
  ["areas", "areas.csv"],
  ["resorts", "resorts.json"],
  ["ticket-prices", "ticket-prices.csv"],
  ["menus", "menus.json"],
  ["menu-items", "menu-items.csv"],
  ["corridors", "corridors.json"],
  ["insider-tips", "insider-tips.json"],
];

const loaded = new WeakMap<Store, Promise<void>>();

export async function loadSampleData(store: Store): Promise<void> {
  for (const [kind, file] of SAMPLE_FILES) await ingest(store, kind, path.join(SAMPLE_DATA_DIR, file));
}

/** In replay mode (UPSTREAMS=replay), loads the sample dataset once per store; a no-op in live mode. */
export function ensureSampleData(ctx: Pick<HandlerContext, "config" | "store">): Promise<void> {
  if (ctx.config.upstreams !== "replay") return Promise.resolve();
  let pending = loaded.get(ctx.store);
  if (!pending) {
    pending = loadSampleData(ctx.store).catch((error) => {
      loaded.delete(ctx.store);
      throw error;
    });
    loaded.set(ctx.store, pending);
  }
  return pending;
}
