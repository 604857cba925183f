// The search index a node serves from: built from the store on first use, rebuilt after each sync on the
// node that ran it, and rebuilt on every other node once they notice the sync's generation changed (checked
// at most every `recheckMs`). A rebuild runs beside the old index, which keeps answering until it is done.
import type { HandlerContext } from "../../catalog/product.ts";
import { releaseMemorySoon } from "../../memory-release.ts";
import { type IndexPageRow, NvdRepository } from "./repository.ts";
import { type CveSearchIndex, CveSearchIndexBuilder } from "./search-index.ts";
import { CVE_SYNC_STATE, type CveSyncState } from "./sync-state.ts";
import { DAY_MS } from "./windows.ts";

/**
 * Records read from the store at a time while the index is built. Small enough that a page's rows die young:
 * with a 1 MB semi-space (a flag once recommended for `npm start`) a page of 5,000 outlived two
 * scavenges, so every row was promoted to the old generation (~250 MB at 300,000 CVEs), whose freed pages V8
 * then kept resident until its memory reducer ran.
 */
export const READ_PAGE = 500;

interface LoadedSearch {
  index: CveSearchIndex;
  /** The sync generation the index was built from. */
  generation: number;
  /** The searchable window: records last modified from `from` to `to` (the newest stored). */
  window: { from: string | null; to: string | null };
  /** When the newest stored page was fetched from NVD (null before the first sync). */
  fetchedAt: string | null;
  builtAt: string;
  /** Reading the window from the store, then building the index from it. */
  readMs: number;
  buildMs: number;
}

export class LiveCveSearch {
  private readonly recentDays: number;
  private readonly recheckMs: number;
  private loaded: LoadedSearch | undefined;
  private loading: Promise<LoadedSearch> | undefined;
  private checkedAt = 0;

  constructor(recentDays: number, recheckMs = 30_000) {
    this.recentDays = recentDays;
    this.recheckMs = recheckMs;
  }

  /** What the index holds now, without touching the store (for status answers). */
  peek(): LoadedSearch | undefined {
    return this.loaded;
  }

  /** The index to answer from: the current one, or the first one built. */
  async current(ctx: Pick<HandlerContext, "store" | "log">): Promise<LoadedSearch> {
    const loaded = this.loaded;
    if (!loaded) return this.reload(ctx);
    if (Date.now() - this.checkedAt >= this.recheckMs && !this.loading) {
      this.checkedAt = Date.now();
      const state = await NvdRepository.of(ctx.store).getState<CveSyncState>(CVE_SYNC_STATE);
      if ((state?.generation ?? 0) !== loaded.generation) {
        this.reload(ctx).catch((error) =>
          ctx.log.warn({ err: String(error) }, "nvd: rebuilding the search index failed"),
        );
      }
    }
    return loaded;
  }

  /** Rebuilds now if the store holds a newer sync generation than the index (or none is loaded). */
  async refresh(ctx: Pick<HandlerContext, "store">): Promise<LoadedSearch> {
    const state = await NvdRepository.of(ctx.store).getState<CveSyncState>(CVE_SYNC_STATE);
    const loaded = this.loaded;
    if (loaded && (state?.generation ?? 0) === loaded.generation) return loaded;
    return this.reload(ctx);
  }

  /** Resolves when a rebuild in progress has finished (tests, and callers that must see fresh data). */
  async settled(): Promise<void> {
    await this.loading?.catch(() => undefined);
  }

  /** Rebuilds from the store now (one rebuild at a time; callers during one share it). */
  reload(ctx: Pick<HandlerContext, "store">): Promise<LoadedSearch> {
    this.loading ??= this.build(ctx).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async build(ctx: Pick<HandlerContext, "store">): Promise<LoadedSearch> {
    const started = performance.now();
    const repository = NvdRepository.of(ctx.store);
    const state = await repository.getState<CveSyncState>(CVE_SYNC_STATE);
    const { from, to } = await searchWindow(repository, state, this.recentDays);
    const builder = new CveSearchIndexBuilder();
    let readMs = 0;
    for (let after: { lastModified: string; id: string } | null = null; from !== null; ) {
      const read = performance.now();
      const rows = await repository.searchablePage(from, after, READ_PAGE);
      readMs += performance.now() - read;
      for (const row of rows) builder.add({ id: row.id, published: row.published, text: row.search_text });
      if (rows.length < READ_PAGE) break;
      const last = rows.at(-1) as IndexPageRow;
      after = { lastModified: last.last_modified, id: last.id };
    }
    const index = builder.finish();
    this.loaded = {
      index,
      generation: state?.generation ?? 0,
      window: { from, to },
      fetchedAt: state?.lastPageAt ?? null,
      builtAt: new Date().toISOString(),
      readMs: Math.round(readMs),
      buildMs: Math.round(performance.now() - started - readMs),
    };
    this.checkedAt = Date.now();
    releaseMemorySoon();
    return this.loaded;
  }
}

/** The searchable window, or nulls before the first sync (records looked up by id are no recent window). */
export async function searchWindow(
  repository: NvdRepository,
  state: CveSyncState | undefined,
  recentDays: number,
): Promise<{ from: string | null; to: string | null }> {
  const to = state?.coveredSince ? await repository.newestLastModified() : null;
  return { from: to ? searchableFrom(to, recentDays) : null, to };
}

/**
 * The start of the searchable window. It is measured back from the newest record stored rather than from
 * the clock, so a node whose sync paused still searches the window it holds, and recorded samples stay
 * searchable in replay.
 */
function searchableFrom(newestLastModified: string, recentDays: number): string {
  return new Date(Date.parse(newestLastModified) - recentDays * DAY_MS).toISOString();
}
