// A title index rebuilt from a SPARQL endpoint read whole by keyset pages (ch: Fedlex, eu: Cellar). A read short
// of the upstream's own count, empty, or much smaller than the index it would replace is refused: the index in
// place is kept, and the refusal is the warmer's error and the route's last fetch error.
import type { HandlerContext } from "../../../catalog/product.ts";
import type { UpstreamClient, UpstreamSpec } from "../../../upstream/client.ts";
import { withFetchHealth } from "../../../upstream/live-cache.ts";
import { GovTitleIndex, type IndexEntry } from "../shared/title-index.ts";
import { type KeysetRead, type KeysetResult, readKeyset, type SparqlAnswer } from "./sparql.ts";

/** A rebuild keeps at least this share of the entries already indexed, or is refused. */
const MIN_KEPT = 0.5;

interface SparqlTitleIndex {
  /** The upstream's name in refusals ("Fedlex"). */
  upstream: string;
  spec: UpstreamSpec;
  sku: string;
  index: string;
  select: (client: UpstreamClient, query: string) => Promise<SparqlAnswer>;
  keyset: KeysetRead;
  entriesOf: (read: KeysetResult) => IndexEntry[];
}

export function rebuildSparqlTitleIndex(
  ctx: HandlerContext,
  source: SparqlTitleIndex,
): Promise<Record<string, unknown>> {
  return withFetchHealth(
    ctx,
    source.sku,
    async () => {
      const client = ctx.upstreams.client(source.spec);
      const read = await readKeyset((query) => source.select(client, query), source.keyset);
      const entries = source.entriesOf(read);
      const index = GovTitleIndex.of(ctx.store);
      const current = await index.count(source.index);
      if (entries.length === 0 || entries.length < current * MIN_KEPT) {
        throw new Error(`${source.upstream} gave ${entries.length} acts against ${current} indexed: refused`);
      }
      const indexed = await index.replaceCollection(source.index, entries);
      return { pages: read.pages, acts: read.groups.size, upstreamCount: read.upstreamCount, indexed };
    },
    { failurePrefix: `${source.upstream} index not rebuilt, the index in place is kept: ` },
  );
}
