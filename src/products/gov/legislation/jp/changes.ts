// The e-Gov change feed: the v1 API's daily list of updated laws (GET /api/1/updatelawlists/{YYYYMMDD},
// XML: DataRoot > Result > Code 0, ApplData > LawNameListInfo[] with LawId; a day without updates is 404).
// v2 has no equivalent on /laws. Every law we have cached that appears in the last days' lists is queued
// for a fresh fetch, so a cached answer follows amendments and repeals within the warmer's period.
import { XMLParser } from "fast-xml-parser";
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { UpstreamError, type UpstreamSpec } from "../../../../upstream/client.ts";
import { JP_ACT_QUEUE, JP_CACHE } from "./route.ts";

const EGOV_V1_SPEC: UpstreamSpec = {
  name: "gov-jp-egov-v1",
  defaultBaseUrl: "https://laws.e-gov.go.jp/api/1",
  budget: "gov-jp-egov",
  maxConcurrent: 1,
  minIntervalMs: 300,
  timeoutMs: 30_000,
  retries: 2,
};

const JP_CHANGES_WARMER = "gov.jp.legislation.changes";
/** Days looked back on each run (today and the days before, Japan time), so a missed run leaves no gap. */
const LOOKBACK_DAYS = 3;
const EVERY_MS = 6 * 3600_000;

const parser = new XMLParser({ isArray: (name) => name === "LawNameListInfo", parseTagValue: false });

/** The law ids of one day's change list; a document that is not a successful list is an error. */
export function changedLawIds(xml: string): string[] {
  const doc = parser.parse(xml) as {
    DataRoot?: { Result?: { Code?: unknown }; ApplData?: { LawNameListInfo?: Array<{ LawId?: unknown }> } };
  };
  if (String(doc.DataRoot?.Result?.Code ?? "") !== "0")
    throw new Error("updatelawlists: not a successful DataRoot answer");
  return (doc.DataRoot?.ApplData?.LawNameListInfo ?? []).flatMap((info) =>
    typeof info.LawId === "string" && info.LawId.trim() ? [info.LawId.trim()] : [],
  );
}

/** YYYYMMDD in Japan time, `back` days before `now`. */
export function jstDay(now: Date, back: number): string {
  const jst = new Date(now.getTime() + 9 * 3600_000 - back * 24 * 3600_000);
  return jst.toISOString().slice(0, 10).replace(/-/g, "");
}

export async function followJpChanges(
  ctx: HandlerContext,
  now = new Date(),
): Promise<Record<string, unknown>> {
  const client = ctx.upstreams.client(EGOV_V1_SPEC);
  const changed = new Set<string>();
  for (let back = 0; back < LOOKBACK_DAYS; back++) {
    try {
      const response = await client.get({ path: `/updatelawlists/${jstDay(now, back)}` });
      if (response.status === 404) continue;
      if (response.status >= 400)
        throw new UpstreamError(client.name, `HTTP ${response.status} from ${response.url}`, response.status);
      for (const id of changedLawIds(response.body)) changed.add(id);
    } catch (error) {
      // In replay a day without a recording answers like a day without updates.
      if (error instanceof UpstreamError && error.status === 404) continue;
      throw error;
    }
  }
  let refreshed = 0;
  for (const id of changed) {
    if (await ctx.store.cache.get(JP_CACHE, id)) {
      await ctx.store.jobs.enqueue(JP_ACT_QUEUE, id, { id }, { lane: "warm" });
      refreshed++;
    }
  }
  return { days: LOOKBACK_DAYS, changed: changed.size, refreshed };
}

export const jpChangesWarmer: Warmer = {
  name: JP_CHANGES_WARMER,
  everyMs: EVERY_MS,
  run: (ctx) => followJpChanges(ctx),
};
