import assert from "node:assert/strict";
import type http from "node:http";
import { after, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import {
  type LoopbackUpstream,
  openTestContext,
  pagedWindowAnswer,
  recordedAnswer,
  startLoopbackUpstream,
  useFastNvdClient,
} from "./harness.test-helper.ts";
import { NvdRepository } from "./repository.ts";
import { createNvdRuntime, NVD_SYNC_QUEUE, runSync } from "./runtime.ts";
import { nvdSettings } from "./settings.ts";
import { type SyncOptions, syncRecentCves } from "./sync.ts";
import { CVE_SYNC_STATE, type CveSyncState } from "./sync-state.ts";
import { NVD_CVES_PATH } from "./upstream.ts";
import { DAY_MS, MAX_WINDOW_MS } from "./windows.ts";

const NOW = new Date("2026-11-21T00:00:00.000Z");
const API_KEY = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";

type Answer = { status: number; headers?: Record<string, string>; body: string };

interface Harness {
  ctx: FamilyTestContext;
  upstream: LoopbackUpstream;
  headers: http.IncomingHttpHeaders[];
  settings: ReturnType<typeof nvdSettings>;
  state: () => Promise<CveSyncState | undefined>;
  sync: (options?: SyncOptions) => ReturnType<typeof syncRecentCves>;
}

const opened: Harness[] = [];
after(async () => {
  for (const h of opened) {
    await h.ctx.close();
    await h.upstream.close();
  }
});

/** A live context whose NVD is a loopback server; `answer` gets the request's number (0-based). */
async function openHarness(
  answer: (url: URL, n: number) => Answer = (url) => pagedWindowAnswer(url),
  env: Record<string, string> = {},
): Promise<Harness> {
  const headers: http.IncomingHttpHeaders[] = [];
  const upstream = await startLoopbackUpstream((url, request) => {
    headers.push(request.headers);
    return answer(url, headers.length - 1);
  });
  const fullEnv = { UPSTREAMS: "live", NVD_BASE_URL: upstream.baseUrl, ...env };
  const ctx = await openTestContext(fullEnv);
  useFastNvdClient(ctx);
  const settings = nvdSettings(fullEnv);
  const repository = NvdRepository.of(ctx.store);
  const harness: Harness = {
    ctx,
    upstream,
    headers,
    settings,
    state: () => repository.getState<CveSyncState>(CVE_SYNC_STATE),
    sync: (options = {}) => syncRecentCves(ctx, settings, { now: NOW, ...options }),
  };
  opened.push(harness);
  return harness;
}

function windowOf(url: URL) {
  return {
    start: url.searchParams.get("lastModStartDate"),
    end: url.searchParams.get("lastModEndDate"),
    startIndex: url.searchParams.get("startIndex"),
    resultsPerPage: url.searchParams.get("resultsPerPage"),
  };
}

describe("the CVE sync against a loopback NVD", () => {
  it("asks one window of the recent days and pages through it with startIndex and resultsPerPage", async () => {
    const h = await openHarness();
    const counts = await h.sync({ pageSize: 2 });
    assert.equal(counts.complete, true);
    assert.deepEqual(
      [counts.windows, counts.pages, counts.cves, counts.skipped, counts.rateLimited],
      [1, 3, 6, 0, 0],
    );
    const start = new Date(NOW.getTime() - 120 * DAY_MS).toISOString();
    assert.deepEqual(
      h.upstream.requests.map((url) => [url.pathname, windowOf(url)]),
      [0, 2, 4].map((index) => [
        NVD_CVES_PATH,
        { start, end: NOW.toISOString(), startIndex: String(index), resultsPerPage: "2" },
      ]),
    );
    assert.equal(h.headers[0]?.apikey, undefined, "no apiKey header without a key");

    const state = await h.state();
    assert.equal(state?.coveredSince, start);
    assert.equal(state?.syncedThrough, NOW.toISOString());
    assert.equal(state?.pending, null);
    assert.equal(state?.generation, 1);
    const repository = NvdRepository.of(h.ctx.store);
    assert.equal(await repository.countAll(), 6);
    const row = await repository.getCve("CVE-2026-41001");
    assert.deepEqual(
      [row?.severity, row?.score, row?.origin, row?.recorded_sample],
      ["CRITICAL", 9.3, "sync", 0],
    );
    assert.equal(JSON.parse(row!.json).sourceIdentifier, "security@examplecorp.example");
    assert.equal((await repository.getCve("CVE-2026-41005"))?.severity, null);
  });

  it("starts the next run an hour before where the last one ended, and sends the API key when configured", async () => {
    const h = await openHarness(undefined, { NVD_API_KEY: API_KEY });
    await h.sync();
    const later = new Date(NOW.getTime() + DAY_MS);
    const counts = await h.sync({ now: later });
    assert.equal(counts.pages, 1);
    const last = windowOf(h.upstream.requests.at(-1)!);
    assert.equal(last.start, new Date(NOW.getTime() - 3600_000).toISOString());
    assert.equal(last.end, later.toISOString());
    assert.equal(last.resultsPerPage, "2000");
    assert.ok(h.headers.every((headers) => headers.apikey === API_KEY));
  });

  it("splits a recent window longer than 120 days into several windows of at most 120 days", async () => {
    const h = await openHarness(undefined, { NVD_RECENT_DAYS: "300" });
    const counts = await h.sync();
    assert.equal(counts.windows, 3);
    const windows = h.upstream.requests.map(windowOf);
    assert.equal(windows.length, 3);
    assert.equal(windows[0]?.start, new Date(NOW.getTime() - 300 * DAY_MS).toISOString());
    assert.equal(windows[2]?.end, NOW.toISOString());
    for (let i = 0; i < windows.length; i++) {
      const span = Date.parse(windows[i]!.end!) - Date.parse(windows[i]!.start!);
      assert.ok(span > 0 && span <= MAX_WINDOW_MS, `window ${i} spans ${span / DAY_MS} days`);
      if (i > 0) {
        // No gap; the next window re-reads the last hour of the previous one.
        const overlap = Date.parse(windows[i - 1]!.end!) - Date.parse(windows[i]!.start!);
        assert.equal(overlap, 3600_000);
      }
    }
    assert.equal((await h.state())?.syncedThrough, NOW.toISOString());
  });

  it("after a gap longer than the window, starts again from the window's beginning", async () => {
    const h = await openHarness();
    await h.sync();
    const muchLater = new Date(NOW.getTime() + 200 * DAY_MS);
    await h.sync({ now: muchLater });
    const state = await h.state();
    assert.equal(state?.coveredSince, new Date(muchLater.getTime() - 120 * DAY_MS).toISOString());
    assert.equal(windowOf(h.upstream.requests.at(-1)!).start, state?.coveredSince);
  });

  it("takes an empty window in its stride", async () => {
    const h = await openHarness(() => recordedAnswer("cves-empty-window"));
    const counts = await h.sync();
    assert.deepEqual([counts.complete, counts.pages, counts.cves], [true, 1, 0]);
    const state = await h.state();
    assert.equal(state?.syncedThrough, NOW.toISOString());
    assert.equal(state?.generation, 0, "nothing stored, nothing for the index to reload");
  });

  it("waits out NVD's 403 rate-limit answer through the client's pause and carries on", async () => {
    const h = await openHarness((url, n) =>
      n < 2 ? recordedAnswer("cves-403-rate-limited") : pagedWindowAnswer(url),
    );
    const counts = await h.sync();
    assert.deepEqual([counts.complete, counts.rateLimited, counts.cves], [true, 2, 6]);
    assert.equal(h.upstream.requests.length, 3, "the refused page is asked again, once per refusal");
    const state = await h.state();
    assert.equal(state?.rateLimited.total, 2);
    assert.ok(state?.rateLimited.lastAt);
  });

  it("treats a 429 the client gave up on as the same rate limit", async () => {
    let refused = 0;
    const h = await openHarness((url) =>
      refused++ < 1 ? { status: 429, headers: { "retry-after": "0" }, body: "" } : pagedWindowAnswer(url),
    );
    const counts = await h.sync();
    assert.deepEqual([counts.complete, counts.rateLimited], [true, 1]);
  });

  it("stops with a clear error when NVD keeps refusing, keeping the window to resume", async () => {
    let refusing = true;
    const h = await openHarness((url) =>
      refusing ? recordedAnswer("cves-403-rate-limited") : pagedWindowAnswer(url),
    );
    await assert.rejects(h.sync(), /rate limit \(HTTP 403\), 3 times in a row/);
    const state = await h.state();
    assert.equal(state?.syncedThrough, null);
    assert.equal(state?.pending?.nextIndex, 0);
    assert.equal(state?.rateLimited.total, 3);

    refusing = false;
    const counts = await h.sync({ now: new Date(NOW.getTime() + 60_000) });
    assert.equal(counts.complete, true);
    const resumed = windowOf(h.upstream.requests[3]!);
    assert.equal(resumed.start, state?.pending?.start, "the refused window is asked again");
  });

  it("a rate limit after some pages ends the run early and the next run resumes at the next startIndex", async () => {
    let refusing = false;
    const h = await openHarness((url) => {
      if (refusing) return recordedAnswer("cves-403-rate-limited");
      refusing = true;
      return pagedWindowAnswer(url);
    });
    const counts = await h.sync({ pageSize: 2 });
    assert.deepEqual([counts.complete, counts.stoppedBy, counts.pages], [false, "rate-limit", 1]);
    assert.equal((await h.state())?.pending?.nextIndex, 2);
    assert.equal((await h.state())?.generation, 1, "the stored page is searchable at once");

    refusing = false;
    const before = h.upstream.requests.length;
    await h.sync({ pageSize: 2 });
    assert.equal(windowOf(h.upstream.requests[before]!).startIndex, "2");
  });

  it("keeps its progress when NVD answers something that is not JSON", async () => {
    const h = await openHarness(() => ({
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<html>",
    }));
    await assert.rejects(h.sync(), /is not JSON/);
    assert.equal((await h.state())?.pending?.nextIndex, 0);
  });

  it("stops before its next page once the time budget is spent", async () => {
    const h = await openHarness();
    const counts = await h.sync({ budgetMs: 0 });
    assert.deepEqual([counts.complete, counts.stoppedBy, counts.pages], [false, "budget", 0]);
    assert.equal(h.upstream.requests.length, 0);
    assert.ok((await h.state())?.pending);
  });

  it("prunes window-synced records older than the window, keeping looked-up ones", async () => {
    const h = await openHarness();
    const repository = NvdRepository.of(h.ctx.store);
    const old = (id: string) => ({
      cve: {
        id,
        published: "2025-01-01T00:00:00.000Z",
        lastModified: "2025-02-01T00:00:00.000Z",
        vulnStatus: "Analyzed",
        description: "old",
        cvss: null,
        cwes: [],
        affected: [],
        references: [],
        nvdKev: null,
      },
      raw: { id },
    });
    await repository.upsertCves([old("CVE-2025-0001")], "sync", NOW.toISOString(), false);
    await repository.upsertCves([old("CVE-2025-0002")], "lookup", NOW.toISOString(), false);
    const counts = await h.sync();
    assert.equal(counts.pruned, 1);
    assert.equal(await repository.getCve("CVE-2025-0001"), undefined);
    assert.ok(await repository.getCve("CVE-2025-0002"));
  });

  it("never replaces a record with an older revision", async () => {
    const h = await openHarness();
    await h.sync();
    const repository = NvdRepository.of(h.ctx.store);
    const current = await repository.getCve("CVE-2026-41002");
    await repository.upsertCves(
      [
        {
          cve: {
            id: "CVE-2026-41002",
            published: current!.published,
            lastModified: "2026-11-01T00:00:00.000Z",
            vulnStatus: "Received",
            description: "older",
            cvss: null,
            cwes: [],
            affected: [],
            references: [],
            nvdKev: null,
          },
          raw: {},
        },
      ],
      "lookup",
      new Date().toISOString(),
      false,
    );
    assert.deepEqual(await repository.getCve("CVE-2026-41002"), current);
  });
});

describe("runSync: one node at a time, continuations", () => {
  it("queues a continuation when a run stops early, and skips while another node holds the lease", async () => {
    const h = await openHarness();
    const runtime = createNvdRuntime(h.settings);
    const counts = await runSync(h.ctx, runtime, { budgetMs: 0, now: NOW });
    assert.equal((counts as { stoppedBy: string }).stoppedBy, "budget");
    assert.equal((await h.ctx.store.jobs.counts(NVD_SYNC_QUEUE)).queued, 1);

    assert.ok(await h.ctx.store.leases.acquire("nvd.sync", "another-node", 60_000));
    assert.match(String((await runSync(h.ctx, runtime, { now: NOW })).skipped), /another node/);
    await h.ctx.store.leases.release("nvd.sync", "another-node");
    const done = await runSync(h.ctx, runtime, { now: NOW });
    assert.equal((done as { complete: boolean }).complete, true);
  });
});
