// The daily refresh of CISA's known-exploited catalogue: one conditional request for the whole file, stored
// as a table that answers join on by CVE id.
import type { HandlerContext } from "../../catalog/product.ts";
import { normaliseKevFeed } from "./normalise.ts";
import { NvdRepository } from "./repository.ts";
import { KEV_STATE, type KevState } from "./sync-state.ts";
import { fetchKevFeed } from "./upstream.ts";

interface KevCounts {
  entries: number;
  skipped: number;
  changed: boolean;
  catalogVersion: string | null;
  [key: string]: unknown;
}

export async function refreshKev(
  ctx: Pick<HandlerContext, "store" | "upstreams">,
  now = new Date(),
): Promise<KevCounts> {
  const repository = NvdRepository.of(ctx.store);
  const state = await repository.getState<KevState>(KEV_STATE);
  const fetched = await fetchKevFeed(ctx, {
    etag: state?.etag ?? null,
    lastModified: state?.lastModified ?? null,
  });
  if (fetched.notModified) {
    if (!state) throw new Error("CISA KEV answered 304 Not Modified to a first, unconditional request");
    await repository.putState(KEV_STATE, { ...state, checkedAt: now.toISOString() } satisfies KevState);
    return { entries: state.entries, skipped: 0, changed: false, catalogVersion: state.catalogVersion };
  }
  const catalogue = normaliseKevFeed(fetched.json);
  await repository.replaceKev(catalogue.entries);
  await repository.putState(KEV_STATE, {
    catalogVersion: catalogue.catalogVersion,
    dateReleased: catalogue.dateReleased,
    entries: catalogue.entries.length,
    etag: fetched.etag,
    lastModified: fetched.lastModified,
    source: fetched.url,
    fetchedAt: now.toISOString(),
    checkedAt: now.toISOString(),
    recordedSample: fetched.recordedSample,
  } satisfies KevState);
  return {
    entries: catalogue.entries.length,
    skipped: catalogue.skipped,
    changed: true,
    catalogVersion: catalogue.catalogVersion,
  };
}
