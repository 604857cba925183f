// The ofac.lists warmer: asks OFAC for both lists conditionally, parses a list only when its Publish_Date or
// Record_Count changed, and stores the merged entries with a new version for every node to index.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import {
  type ListMeta,
  readStoredLists,
  readVersion,
  type StoredLists,
  touchVersion,
  versionOf,
  writeStoredLists,
} from "./list-store.ts";
import { type ListName, parseSanctionsList, readPublication, type SanctionEntry } from "./parse.ts";
import type { OfacRuntime } from "./runtime.ts";
import { fetchList } from "./upstream.ts";

export const OFAC_WARMER = "ofac.lists";
/** OFAC publishes several times a week at no fixed hour; a conditional request every hour costs little. */
export const OFAC_WARM_EVERY_MS = 3600_000;
/** The queue a buyer's first request uses when no list is stored yet. */
export const OFAC_REFRESH_QUEUE = "ofac.refresh";

const LISTS: ListName[] = ["SDN", "CONSOLIDATED"];

interface RefreshCounts {
  [count: string]: unknown;
  changed: ListName[];
  unchanged: ListName[];
  entries: number;
  version: string;
}

type Ctx = Pick<HandlerContext, "store" | "upstreams">;

async function refreshLists(ctx: Ctx): Promise<RefreshCounts> {
  const version = await readVersion(ctx);
  const previous = version?.body.lists ?? {};
  const lists: Partial<Record<ListName, ListMeta>> = { ...previous };
  const fresh = new Map<ListName, SanctionEntry[]>();
  const unchanged: ListName[] = [];
  let recordedSample = false;
  const checkedAt = new Date().toISOString();
  for (const name of LISTS) {
    const before = previous[name];
    const fetched = await fetchList(ctx, name, before);
    recordedSample ||= fetched.recordedSample;
    const same = before !== undefined && (fetched.body === null || sameHeader(fetched.body, before));
    if (same) {
      unchanged.push(name);
      lists[name] = {
        ...before,
        checkedAt,
        etag: fetched.etag ?? before.etag,
        lastModified: fetched.lastModified ?? before.lastModified,
      };
      continue;
    }
    if (fetched.body === null) throw new Error(`ofac: ${name} answered 304 but no copy is stored`);
    const parsed = parseSanctionsList(fetched.body, name);
    fresh.set(name, parsed.entries);
    lists[name] = {
      list: name,
      publishDate: parsed.publishDate,
      publishedOn: parsed.publishedOn,
      recordCount: parsed.recordCount,
      entries: parsed.entries.length,
      source: fetched.url,
      etag: fetched.etag,
      lastModified: fetched.lastModified,
      fetchedAt: checkedAt,
      checkedAt,
    };
  }
  const nextVersion = versionOf(lists);
  if (fresh.size === 0) {
    await touchVersion(
      ctx,
      { version: nextVersion, lists },
      recordedSample || (version?.recordedSample ?? false),
    );
    return {
      changed: [],
      unchanged,
      entries: LISTS.reduce((n, l) => n + (lists[l]?.entries ?? 0), 0),
      version: nextVersion,
    };
  }
  // Lists that did not change keep the entries already stored.
  const kept = unchanged.length > 0 ? ((await readStoredLists(ctx))?.body.entries ?? []) : [];
  const entries = LISTS.flatMap((name) => fresh.get(name) ?? kept.filter((e) => e.list === name));
  const stored: StoredLists = { version: nextVersion, lists, entries };
  await writeStoredLists(ctx, stored, recordedSample);
  return { changed: [...fresh.keys()], unchanged, entries: entries.length, version: nextVersion };
}

function sameHeader(body: string, before: ListMeta): boolean {
  const { publishDate } = readPublication(body);
  const count = body.slice(0, 4096).match(/<(?:\w+:)?Record_Count>\s*(\d+)\s*</);
  return publishDate === before.publishDate && (count ? Number(count[1]) : null) === before.recordCount;
}

/** The refresh, then this node's index rebuilt at once (other nodes follow when they see the new version). */
export async function refreshAndIndex(ctx: HandlerContext, runtime: OfacRuntime): Promise<RefreshCounts> {
  const counts = await refreshLists(ctx);
  await runtime.current(ctx, { force: true });
  return counts;
}

export function ofacWarmer(runtime: OfacRuntime): Warmer {
  return { name: OFAC_WARMER, everyMs: OFAC_WARM_EVERY_MS, run: (ctx) => refreshAndIndex(ctx, runtime) };
}
