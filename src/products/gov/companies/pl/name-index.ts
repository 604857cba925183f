// Our own name index of the KRS (the register has no name search): every entity fetched is added or replaced
// (by the lookup job, so the daily bulletin's refreshes keep it current); searches read it and nothing else.
import { type ErrorOutcome, notFound } from "../../../../catalog/product.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { GovTitleIndex, type IndexEntry } from "../../shared/title-index.ts";
import { searchAnswer } from "../answers.ts";
import type { Ctx } from "../register.ts";
import { type PlCompany, type PlItem, toItem } from "./normalise.ts";

export const PL_INDEX = "co-pl";
export const PL_MAX_MATCHES = 20;
const INDEX_SOURCE = "https://api-krs.ms.gov.pl/api/krs";

function indexEntry(company: PlCompany): IndexEntry {
  return {
    id: company.id,
    title: company.name,
    // Former names and the tax and statistical numbers are searchable too.
    alt: [...company.formerNames.map((n) => n.name), company.vatId, company.regon].filter(Boolean).join(" "),
    body: toItem(company),
  };
}

export async function indexCompany(ctx: Pick<Ctx, "store">, company: PlCompany): Promise<void> {
  await GovTitleIndex.of(ctx.store).upsert(PL_INDEX, [indexEntry(company)]);
}

export async function searchPlIndex(
  ctx: Ctx,
  info: GovRouteInfo,
  q: string,
): Promise<{ ok: true; body: unknown } | { ok: false; outcome: ErrorOutcome }> {
  const index = GovTitleIndex.of(ctx.store);
  const [found, indexSize, updatedAt] = await Promise.all([
    index.search<PlItem>(PL_INDEX, q, PL_MAX_MATCHES),
    index.count(PL_INDEX),
    index.lastUpdated(PL_INDEX),
  ]);
  if (!found || found.items.length === 0) {
    return {
      ok: false,
      outcome: notFound(
        `No KRS entity in our name index (${indexSize} entities) matches "${q}"; nothing was charged. The index ` +
          "holds every entity looked up by its KRS number and those changed since it started; ask by id to add one.",
        { query: q, indexSize },
      ),
    };
  }
  const doc = {
    body: { totalCount: found.totalCount, items: found.items, source: INDEX_SOURCE },
    fetchedAt: updatedAt ?? new Date().toISOString(),
    expiresAt: null,
    etag: null,
    lastModified: null,
    recordedSample: ctx.upstreams.mode === "replay",
  };
  return { ok: true, body: { ...searchAnswer(info, q, doc), indexSize } };
}
