// A title search asked of the upstream inside the paid call (at, au, gb, jp, pl, us): the upstream's page is
// normalised and cached by the shared live search (../shared/live-search.ts), then answered as a search.
import { type HandlerContext, ok } from "../../../catalog/product.ts";
import { type GovRouteInfo, govSku } from "../shared/gov-product.ts";
import { type LiveSearch, liveSearch } from "../shared/live-search.ts";
import { type SearchResult, searchAnswer } from "./answers.ts";

/** What an upstream search returned: the page as read, the URL asked, and whether it was a recording. */
interface UpstreamPage {
  url: string;
  recordedSample: boolean;
}

/** An upstream's answer to a title search is served this long before it is asked again. */
const SEARCH_FRESH_MS = 12 * 3600_000;

/** The route's sku (where the fetches' health is recorded) and SEARCH_FRESH_MS are the defaults. */
type UpstreamTitleSearch<Item, Page extends UpstreamPage> = Omit<
  LiveSearch<SearchResult<Item>>,
  "fetch" | "sku" | "freshMs"
> &
  Partial<Pick<LiveSearch<SearchResult<Item>>, "sku" | "freshMs">> & {
    fetch: () => Promise<Page>;
    /** The hits of the page (its URL is the answer's source). */
    normalise: (page: Page) => Omit<SearchResult<Item>, "source">;
  };

export async function liveSearchAnswer<Item, Page extends UpstreamPage>(
  ctx: HandlerContext,
  info: GovRouteInfo,
  q: string,
  search: UpstreamTitleSearch<Item, Page>,
) {
  const { fetch, normalise, ...cached } = search;
  const found = await liveSearch<SearchResult<Item>>(ctx, {
    sku: govSku(info.cc, info.family),
    freshMs: SEARCH_FRESH_MS,
    ...cached,
    fetch: async () => {
      const page = await fetch();
      return { body: { ...normalise(page), source: page.url }, recordedSample: page.recordedSample };
    },
  });
  if (!found.ok) return found.outcome;
  return ok(searchAnswer(info, q, found.doc.body, found.doc.fetchedAt, found.doc.recordedSample));
}
