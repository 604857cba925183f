// The parsed lists in the store (one compact document every node reads) and a small version document that
// nodes poll to know when to rebuild their in-memory screening index.
import type { HandlerContext } from "../../catalog/product.ts";
import type { ListName, SanctionEntry } from "./parse.ts";

const OFAC_FAMILY = "ofac";
const LIST_KEY = "lists";
const VERSION_KEY = "version";

export interface ListMeta {
  list: ListName;
  publishDate: string;
  publishedOn: string;
  recordCount: number | null;
  entries: number;
  source: string;
  etag: string | null;
  lastModified: string | null;
  /** When this list's current publication was downloaded. */
  fetchedAt: string;
  /** When OFAC was last asked about it (304 or same Publish_Date included). */
  checkedAt: string;
}

export interface StoredLists {
  version: string;
  lists: Partial<Record<ListName, ListMeta>>;
  entries: SanctionEntry[];
}

interface StoredVersion {
  version: string;
  lists: Partial<Record<ListName, ListMeta>>;
}

type Ctx = Pick<HandlerContext, "store">;

export function versionOf(lists: Partial<Record<ListName, ListMeta>>): string {
  return (["SDN", "CONSOLIDATED"] as const)
    .map((name) => {
      const meta = lists[name];
      return meta ? `${name}:${meta.publishedOn}:${meta.recordCount ?? meta.entries}` : `${name}:none`;
    })
    .join("|");
}

export async function readStoredLists(ctx: Ctx) {
  return ctx.store.cache.get<StoredLists>(OFAC_FAMILY, LIST_KEY);
}

export async function readVersion(ctx: Ctx, maxAgeMs = 0) {
  return maxAgeMs > 0
    ? ctx.store.cache.getRecent<StoredVersion>(OFAC_FAMILY, VERSION_KEY, maxAgeMs)
    : ctx.store.cache.get<StoredVersion>(OFAC_FAMILY, VERSION_KEY);
}

/** The lists and their version land in one transaction, so a node never sees a version without its lists. */
export async function writeStoredLists(
  ctx: Ctx,
  stored: StoredLists,
  recordedSample: boolean,
): Promise<void> {
  const fetchedAt = new Date().toISOString();
  await ctx.store.cache.putMany<unknown>(OFAC_FAMILY, [
    { key: LIST_KEY, body: stored, fetchedAt, recordedSample },
    {
      key: VERSION_KEY,
      body: { version: stored.version, lists: stored.lists } satisfies StoredVersion,
      fetchedAt,
      recordedSample,
    },
  ]);
}

/** Only the check times changed (304 or same publication): the version document alone is rewritten. */
export async function touchVersion(ctx: Ctx, stored: StoredVersion, recordedSample: boolean): Promise<void> {
  await ctx.store.cache.put(OFAC_FAMILY, VERSION_KEY, {
    body: stored,
    fetchedAt: new Date().toISOString(),
    recordedSample,
  });
}
