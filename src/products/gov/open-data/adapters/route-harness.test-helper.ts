// For the adapters' tests: a portal's recordings read back, and its route called the way the service calls
// it (query validated first, then the handler), over the whole open-data family replaying its recordings.
import fs from "node:fs";
import path from "node:path";
import { type FamilyTestContext, openFamilyContext } from "../../../../../test/family-harness.ts";
import type { AnyProduct } from "../../../../catalog/product.ts";
import type { RecordingFile } from "../../../../upstream/recordings.ts";
import { openDataAnswer } from "../dataset.ts";
import { govOpenDataFamily, OPEN_DATA_RECORDINGS_DIR } from "../index.ts";
import type { Portal } from "../portal.ts";
import { OPEN_DATA_PORTALS } from "../portals.ts";
import { datasetQueue } from "../route.ts";

export const Answer = openDataAnswer();

/** The body of a recording, parsed as the upstream sent it. */
export function recorded<T>(name: string): T {
  const file = JSON.parse(
    fs.readFileSync(path.join(OPEN_DATA_RECORDINGS_DIR, `${name}.recording.json`), "utf8"),
  ) as RecordingFile;
  return JSON.parse(file.response.body ?? "") as T;
}

export function portalOf(cc: string): Portal {
  const entry = OPEN_DATA_PORTALS.find((p) => p.portal.cc === cc);
  if (!entry) throw new Error(`no portal ${cc}`);
  return entry.portal;
}

export interface RouteHarness {
  ctx: FamilyTestContext;
  route: AnyProduct;
  call: (params: Record<string, string>) => Promise<{ status: number; body: unknown }>;
  /** Runs the dataset job the route queued for `id`. */
  fetchDataset: (id: string) => Promise<void>;
  close: () => Promise<void>;
}

export async function openRoute(cc: string): Promise<RouteHarness> {
  const ctx = await openFamilyContext(govOpenDataFamily);
  const route = ctx.family.products.find((p) => p.path === `/v1/gov/${cc}/open-data`) as AnyProduct;
  if (!route) throw new Error(`no route for ${cc}`);
  return {
    ctx,
    route,
    async call(params) {
      const parsed = route.query?.safeParse(params);
      if (!parsed?.success) {
        return { status: 400, body: { parameter: String(parsed?.error.issues[0]?.path[0]) } };
      }
      const outcome = await route.handle({ query: parsed.data, body: undefined }, ctx);
      return outcome as { status: number; body: unknown };
    },
    async fetchDataset(id) {
      const job = ctx.family.jobs?.[datasetQueue(cc)];
      if (!job) throw new Error(`no dataset job for ${cc}`);
      await job({ id }, ctx);
    },
    close: () => ctx.close(),
  };
}

export const field = (outcome: { body: unknown }, name: string) =>
  (outcome.body as Record<string, unknown>)[name];
