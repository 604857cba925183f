import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { startLoopbackUpstream } from "../../../../test/family-harness.ts";
import { openTestStore } from "../../../../test/test-store.ts";
import { loadConfig } from "../../../config.ts";
import { UpstreamBudgetError } from "../../../upstream/client.ts";
import { UpstreamRegistry } from "../../../upstream/registry.ts";
import { parseOverpassStatus, runOverpassQuery } from "./overpass.ts";

// The text /api/status serves, as shown in overpy's documentation (HTTP 429 troubleshooting) and in the
// status parsers of public Overpass clients.
const BUSY = `Connected as: 866011160
Current time: 2021-03-15T09:14:16Z
Rate limit: 2
Slot available after: 2021-03-15T09:30:24Z, in 968 seconds.
Slot available after: 2021-03-15T09:20:10Z, in 354 seconds.
Currently running queries (pid, space limit, time limit, start time):
14803\t536870912\t180\t2021-03-15T09:12:33Z
`;
const FREE = `Connected as: 123456789
Current time: 2025-11-30T18:30:00Z
Announced endpoint: none
Rate limit: 2
2 slots available now.
Currently running queries (pid, space limit, time limit, start time):
`;

describe("parseOverpassStatus", () => {
  test("the soonest slot, a free slot now, or nothing known", () => {
    assert.equal(parseOverpassStatus(BUSY), 354_000);
    assert.equal(parseOverpassStatus(FREE), 0);
    assert.equal(parseOverpassStatus("1 slot available now.\n"), 0);
    assert.equal(parseOverpassStatus("<html>502 Bad Gateway</html>"), undefined);
  });
});

describe("Overpass refusals pause every query for minutes", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  async function live(status: string) {
    const server = await startLoopbackUpstream((url) => {
      if (url.pathname === "/api/status") return { status: 200, body: status };
      return {
        status: 429,
        body: "<p><strong>Error</strong>: runtime error: open64: 0 Success /osm3s_osm_base Dispatcher_Client::request_read_and_idx::rate_limited. Please check /api/status for the quota of your IP address.</p>",
      };
    });
    const store = await openTestStore();
    closers.push(server.close, () => store.close());
    const config = loadConfig({
      UPSTREAMS: "live",
      LOG_LEVEL: "silent",
      OVERPASS_BASE_URL: `${server.baseUrl}/api`,
    });
    return {
      server,
      store,
      upstreams: new UpstreamRegistry(config, undefined, undefined, store.upstreamBudgets),
    };
  }

  test("a 429 pauses until the slot /api/status names; later queries are not sent", async () => {
    const { server, store, upstreams } = await live(BUSY);
    await assert.rejects(runOverpassQuery({ upstreams }, "[out:json];node(1);out;"), (error: unknown) => {
      assert.ok(error instanceof UpstreamBudgetError);
      assert.ok(error.retryAfterSec > 350 && error.retryAfterSec <= 354, String(error.retryAfterSec));
      return true;
    });
    assert.deepEqual(
      server.requests.map((u) => u.pathname),
      ["/api/interpreter", "/api/status"],
    );
    await assert.rejects(runOverpassQuery({ upstreams }, "[out:json];node(2);out;"), UpstreamBudgetError);
    assert.equal(server.requests.length, 2, "nothing more is sent during the pause");
    const pause = await store.upstreamBudgets.state("overpass", undefined);
    assert.match(pause.pauseReason ?? "", /HTTP 429/);
  });

  test("without a usable /api/status the pause is the default minutes", async () => {
    const { upstreams } = await live("not a status page");
    await assert.rejects(runOverpassQuery({ upstreams }, "[out:json];node(1);out;"), (error: unknown) => {
      assert.ok(error instanceof UpstreamBudgetError);
      assert.ok(error.retryAfterSec > 295 && error.retryAfterSec <= 300, String(error.retryAfterSec));
      return true;
    });
  });
});
