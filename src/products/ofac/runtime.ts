// This node's screening index: built from the stored lists, and rebuilt when the stored version changes
// (another node's warmer ran). Checking costs one small read at most every VERSION_CHECK_MS.
import type { BackgroundTask, HandlerContext } from "../../catalog/product.ts";
import { releaseMemorySoon } from "../../memory-release.ts";
import { type ListMeta, readStoredLists, readVersion } from "./list-store.ts";
import type { ListName } from "./parse.ts";
import { ScreeningIndex } from "./screen.ts";

const VERSION_CHECK_MS = 30_000;

export interface LoadedIndex {
  index: ScreeningIndex;
  version: string;
  lists: Partial<Record<ListName, ListMeta>>;
  recordedSample: boolean;
  builtAt: string;
  buildMs: number;
}

export class OfacRuntime {
  private loaded: LoadedIndex | undefined;
  private loading: Promise<LoadedIndex | undefined> | undefined;

  get snapshot(): LoadedIndex | undefined {
    return this.loaded;
  }

  /** The index for the stored version, rebuilt first if the store moved on; undefined when nothing is stored. */
  async current(ctx: Pick<HandlerContext, "store">, options: { force?: boolean } = {}) {
    const version = await readVersion(ctx, options.force ? 0 : VERSION_CHECK_MS);
    if (!version) return this.loaded;
    if (this.loaded && this.loaded.version === version.body.version) {
      this.loaded.lists = version.body.lists;
      return this.loaded;
    }
    this.loading ??= this.load(ctx).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(ctx: Pick<HandlerContext, "store">): Promise<LoadedIndex | undefined> {
    const stored = await readStoredLists(ctx);
    if (!stored) return this.loaded;
    const started = performance.now();
    const index = new ScreeningIndex(stored.body.entries);
    this.loaded = {
      index,
      version: stored.body.version,
      lists: stored.body.lists,
      recordedSample: stored.recordedSample,
      builtAt: new Date().toISOString(),
      buildMs: Math.round(performance.now() - started),
    };
    releaseMemorySoon();
    return this.loaded;
  }
}

/** Keeps a worker node's index current without waiting for a buyer; API-only nodes load on first request. */
export function ofacIndexTask(runtime: OfacRuntime): BackgroundTask {
  return {
    name: "ofac.index",
    start(ctx) {
      const refresh = () =>
        runtime
          .current(ctx)
          .catch((error) => ctx.log.warn({ err: String(error) }, "ofac: loading the index failed"));
      void refresh();
      const timer = setInterval(refresh, VERSION_CHECK_MS);
      timer.unref();
      return { stop: async () => clearInterval(timer) };
    },
  };
}
