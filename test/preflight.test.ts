// `npm run preflight` against loopback stand-ins: each family's declared checks (configuration, one cheap
// request per upstream), the facilitator's /supported and the wallets, as a table; non-zero exit on a blocker.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { loadConfig } from "../src/config.ts";
import { formatPreflightTable, hasBlocker, type PreflightRow, runPreflight } from "../src/preflight/run.ts";
import { ecbFamily } from "../src/products/ecb/index.ts";
import { edgarFamily } from "../src/products/edgar/index.ts";
import { fredFamily } from "../src/products/fred/index.ts";
import { govLegislationFamily } from "../src/products/gov/legislation/index.ts";
import { nvdFamily } from "../src/products/nvd/index.ts";
import { USPTO_RECORDINGS_DIR, usptoFamily } from "../src/products/uspto/index.ts";
import { judgePortal } from "../src/products/uspto/preflight.ts";
import { type LoopbackUpstream, startLoopbackUpstream } from "./family-harness.ts";

const run = promisify(execFile);
const PAY_TO = "0x1111111111111111111111111111111111111111";
const FRED_KEY = "abcdefghijklmnopqrstuvwxyz012345";
const UA = "paycall/0.1 (+http://localhost; ops@acme.com)";

type Answer = { status: number; headers?: Record<string, string>; body: string };

function supported(networks: string[]): Answer {
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      kinds: networks.map((network) => ({ x402Version: 2, scheme: "exact", network })),
      extensions: [],
      signers: {},
    }),
  };
}

describe("preflight against loopback stand-ins", () => {
  const answers: Record<string, (url: URL) => Answer | Promise<Answer>> = {};
  const servers: Record<string, LoopbackUpstream> = {};
  const stand = async (name: string, answer: (url: URL) => Answer | Promise<Answer>) => {
    answers[name] = answer;
    servers[name] = await startLoopbackUpstream((url) => answers[name]!(url));
  };

  before(async () => {
    await stand("ecb", () => ({ status: 200, headers: { "content-type": "text/csv" }, body: "KEY\n" }));
    await stand("fred", () => ({ status: 200, headers: { "content-type": "application/json" }, body: "{}" }));
    await stand("sec", () => ({ status: 200, headers: { "content-type": "application/json" }, body: "{}" }));
    await stand("facilitator", () => supported(["eip155:8453"]));
  });
  after(async () => {
    for (const server of Object.values(servers)) await server.close();
  });

  const envOf = (extra: Record<string, string> = {}) => ({
    UPSTREAMS: "live",
    CONTACT_EMAIL: "ops@acme.com",
    FACILITATOR_URL: servers.facilitator!.baseUrl,
    PAY_TO_EVM: PAY_TO,
    ECB_BASE_URL: servers.ecb!.baseUrl,
    FRED_BASE_URL: servers.fred!.baseUrl,
    FRED_API_KEY: FRED_KEY,
    FRED_REDISTRIBUTION: "permitted",
    SEC_DATA_BASE_URL: servers.sec!.baseUrl,
    SEC_WWW_BASE_URL: servers.sec!.baseUrl,
    SEC_USER_AGENT: "Acme Data ops@acme.com",
    ...extra,
  });

  async function preflight(env: Record<string, string>, timeoutMs = 2000) {
    const config = loadConfig(env);
    const families = [ecbFamily(config), fredFamily(config), edgarFamily(config)];
    return runPreflight(config, families, UA, { timeoutMs });
  }

  const rowOf = (rows: PreflightRow[], family: string, upstream: string) => {
    const found = rows.find((r) => r.family === family && r.upstream === upstream);
    assert.ok(found, `no row ${family} / ${upstream} in ${JSON.stringify(rows)}`);
    return found;
  };

  it("everything answering: no blocker; one row per declared check, the facilitator and each wallet", async () => {
    const rows = await preflight(envOf());
    assert.equal(hasBlocker(rows), false, formatPreflightTable(rows));
    assert.equal(rowOf(rows, "ecb", "ecb").state, "ok");
    assert.equal(rowOf(rows, "fred", "fred").state, "ok");
    assert.equal(rowOf(rows, "edgar", "sec-data").state, "ok");
    assert.equal(rowOf(rows, "edgar", "sec-www").state, "ok");
    assert.match(rowOf(rows, "payments", "facilitator").detail, /exact on base/);
    assert.equal(rowOf(rows, "payments", "wallet base").detail, `pays to ${PAY_TO}`);
    const fredAsked = servers.fred!.requests.at(-1)!;
    assert.equal(fredAsked.pathname, "/fred/series");
    assert.equal(fredAsked.searchParams.get("api_key"), FRED_KEY);
    const secAsked = servers.sec!.requests.map((u) => u.pathname).sort();
    assert.deepEqual(secAsked.slice(-2), ["/files/company_tickers.json", "/submissions/CIK0000320193.json"]);
  });

  it("an upstream refusing the key, SEC refusing the agent, a facilitator without the network: blockers", async () => {
    answers.fred = () => ({
      status: 400,
      headers: { "content-type": "application/json" },
      body: '{"error_code":400,"error_message":"Bad Request.  The value for variable api_key is not registered."}',
    });
    answers.sec = () => ({ status: 403, body: "Undeclared Automated Tool" });
    answers.facilitator = () => supported(["eip155:84532"]);
    try {
      const rows = await preflight(envOf());
      assert.equal(hasBlocker(rows), true);
      const fred = rowOf(rows, "fred", "fred");
      assert.equal(fred.state, "blocker");
      assert.match(fred.fix, /FRED_API_KEY/);
      assert.doesNotMatch(fred.detail, new RegExp(FRED_KEY), "the key is never printed");
      const sec = rowOf(rows, "edgar", "sec-data");
      assert.equal(sec.state, "blocker");
      assert.match(sec.detail, /HTTP 403 .*refused/);
      assert.match(sec.fix, /SEC_USER_AGENT/);
      const facilitator = rowOf(rows, "payments", "facilitator");
      assert.equal(facilitator.state, "blocker");
      assert.match(facilitator.detail, /lacks the exact scheme on base \(eip155:8453\)/);
      const table = formatPreflightTable(rows);
      assert.match(table.split("\n")[0]!, /^family\s+upstream\s+state\s+detail/);
      assert.match(table, /blocker\(s\)/);
    } finally {
      answers.fred = () => ({ status: 200, headers: { "content-type": "application/json" }, body: "{}" });
      answers.sec = () => ({ status: 200, headers: { "content-type": "application/json" }, body: "{}" });
      answers.facilitator = () => supported(["eip155:8453"]);
    }
  });

  it("a family missing live configuration is one blocker row, and its upstream is not asked", async () => {
    const before = servers.sec!.requests.length;
    const env = envOf({ FRED_REDISTRIBUTION: "" });
    delete (env as Record<string, string>).SEC_USER_AGENT;
    delete (env as Record<string, string>).CONTACT_EMAIL;
    const rows = await preflight(env);
    const edgar = rowOf(rows, "edgar", "configuration");
    assert.equal(edgar.state, "blocker");
    assert.match(edgar.fix, /SEC_USER_AGENT/);
    const fred = rowOf(rows, "fred", "configuration");
    assert.match(fred.detail, /Terms of Use/);
    assert.equal(fred.state, "warn", "FRED is off until the operator opts in: a warning");
    assert.equal(servers.sec!.requests.length, before, "SEC was not asked");
  });

  it("an upstream that does not answer in time is a blocker, not a hung preflight", async () => {
    answers.ecb = () => new Promise<Answer>(() => {});
    try {
      const started = Date.now();
      const rows = await preflight(envOf(), 300);
      assert.equal(rowOf(rows, "ecb", "ecb").state, "blocker");
      assert.match(rowOf(rows, "ecb", "ecb").detail, /timed out|no answer/);
      assert.ok(Date.now() - started < 5000);
    } finally {
      answers.ecb = () => ({ status: 200, headers: { "content-type": "text/csv" }, body: "KEY\n" });
    }
  });

  it("the legislation family probes each of its upstreams: a row each, none 'nothing to check'", async () => {
    const legislation = await startLoopbackUpstream((url) =>
      /\.xml$|data\.feed$/.test(url.pathname)
        ? { status: 200, headers: { "content-type": "application/atom+xml" }, body: "<feed/>" }
        : { status: 200, headers: { "content-type": "application/json" }, body: "{}" },
    );
    try {
      const upstreams = [
        "AT_RIS",
        "AU_FRL",
        "CA_JUSTICE_LAWS",
        "CH_FEDLEX",
        "DE_GII",
        "DE_NEURIS",
        "EU_CELLAR",
      ]
        .concat(["GB_LEGISLATION", "JP_EGOV", "PL_SEJM_ELI", "US_ECFR"])
        .map((name) => [`GOV_${name}_BASE_URL`, legislation.baseUrl]);
      const config = loadConfig({ ...envOf(), ...Object.fromEntries(upstreams) });
      const rows = (
        await runPreflight(config, [govLegislationFamily(config)], UA, { timeoutMs: 2000 })
      ).filter((r) => r.family === "gov-legislation");
      assert.equal(rows.length, 11, formatPreflightTable(rows));
      assert.deepEqual(
        rows.filter((r) => r.state !== "ok"),
        [],
      );
      assert.equal(legislation.requests.length, 11);
    } finally {
      await legislation.close();
    }
  });

  it("npm run preflight prints the table and exits 1 on a blocker, 0 without", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-preflight-"));
    try {
      // Replay mode: no family reaches the network; only the payment checks decide.
      const base = { ...process.env, UPSTREAMS: "replay", DATA_DIR: dataDir, LOG_LEVEL: "silent" };
      const ok = await run(process.execPath, ["src/main.ts", "preflight"], { env: base });
      assert.match(ok.stdout, /^family\s+upstream\s+state/);
      assert.match(ok.stdout, /payments\s+facilitator\s+WARN/);
      answers.facilitator = () => supported(["eip155:84532"]);
      const failed = await run(process.execPath, ["src/main.ts", "preflight"], {
        env: { ...base, FACILITATOR_URL: servers.facilitator!.baseUrl, PAY_TO_EVM: PAY_TO },
      }).catch((error: { code: number; stdout: string }) => error);
      assert.equal((failed as { code?: number }).code, 1);
      assert.match(failed.stdout, /payments\s+facilitator\s+BLOCKER/);
    } finally {
      answers.facilitator = () => supported(["eip155:8453"]);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("preflight of the USPTO family against a stand-in of the Open Data Portal", () => {
  const GOOD_KEY = "good-odp-key-12345678";
  const recorded = JSON.parse(
    fs.readFileSync(path.join(USPTO_RECORDINGS_DIR, "status-codes.recording.json"), "utf8"),
  ) as { response: { body: string } };
  let portal: LoopbackUpstream;
  const keys: Array<string | undefined> = [];

  before(async () => {
    portal = await startLoopbackUpstream((url, request): Answer => {
      const key = request.headers["x-api-key"] as string | undefined;
      keys.push(key);
      if (url.pathname !== "/api/v1/patent/status-codes") return { status: 404, body: "" };
      if (key === undefined) return { status: 401, body: "" };
      if (key === "throttled-key-123") return { status: 429, headers: { "retry-after": "5" }, body: "" };
      if (key !== GOOD_KEY) return { status: 403, body: '{"code":403,"error":"Forbidden"}' };
      return { status: 200, headers: { "content-type": "application/json" }, body: recorded.response.body };
    });
  });
  after(async () => {
    await portal.close();
  });

  async function usptoRows(env: Record<string, string>) {
    const config = loadConfig({ UPSTREAMS: "live", USPTO_BASE_URL: portal.baseUrl, ...env });
    const rows = await runPreflight(config, [usptoFamily(config)], UA, { timeoutMs: 2000 });
    return rows.filter((r) => r.family === "uspto");
  }

  it("with the key: the status-code list is asked with it, and nothing is left of PatentsView", async () => {
    const rows = await usptoRows({ USPTO_API_KEY: GOOD_KEY });
    assert.deepEqual(
      rows.map((r) => [r.upstream, r.state]),
      [
        ["uspto (legacy settings)", "ok"],
        ["uspto", "ok"],
      ],
    );
    assert.equal(keys.at(-1), GOOD_KEY);
    assert.equal(portal.requests.at(-1)?.search, "?limit=1");
  });

  it("a refused key (403) and a throttled one (429) are told apart; the key is never printed", async () => {
    const [, refused] = await usptoRows({ USPTO_API_KEY: "refused-key-123" });
    assert.equal(refused?.state, "blocker");
    assert.match(refused?.detail ?? "", /HTTP 403 .*refused the API key/);
    assert.match(refused?.fix ?? "", /USPTO_API_KEY.*activated/);
    assert.doesNotMatch(`${refused?.detail} ${refused?.fix}`, /refused-key-123/);
    const [, throttled] = await usptoRows({ USPTO_API_KEY: "throttled-key-123" });
    assert.equal(throttled?.state, "warn");
    assert.match(throttled?.detail ?? "", /429/);
  });

  it("no key: one configuration blocker naming USPTO_API_KEY, the portal not asked; PatentsView settings warned of", async () => {
    const asked = portal.requests.length;
    const missing = await usptoRows({ PATENTSVIEW_API_KEY: "old-patentsearch-key" });
    assert.equal(missing.length, 1);
    assert.equal(missing[0]?.upstream, "configuration");
    assert.equal(missing[0]?.state, "blocker");
    assert.match(missing[0]?.detail ?? "", /USPTO_API_KEY is not set.*PatentSearch keys/);
    assert.equal(portal.requests.length, asked);
    const legacy = await usptoRows({ USPTO_API_KEY: GOOD_KEY, PATENTSVIEW_MIN_INTERVAL_MS: "1400" });
    assert.equal(legacy[0]?.state, "warn");
    assert.match(legacy[0]?.detail ?? "", /PATENTSVIEW_MIN_INTERVAL_MS is set but no longer read/);
  });

  it("the probe's 401 (no key reached the portal) says to set the key", async () => {
    const verdict = judgePortal({
      status: 401,
      headers: new Headers(),
      body: "",
      url: `${portal.baseUrl}/api/v1/patent/status-codes?limit=1`,
      notModified: false,
      recordedSample: false,
    });
    assert.equal(verdict.state, "blocker");
    assert.match(verdict.detail, /HTTP 401 .*no API key/);
    assert.match(verdict.fix ?? "", /Set USPTO_API_KEY/);
  });
});

describe("NVD's preflight", () => {
  it("shows a 403 as NVD's refusal, pointing at the key, at once and without pausing", async () => {
    const nvd = await startLoopbackUpstream(() => ({ status: 403, body: "<h1>403 Forbidden</h1>" }));
    try {
      const config = loadConfig({
        UPSTREAMS: "live",
        NVD_BASE_URL: nvd.baseUrl,
        NVD_API_KEY: "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9",
      });
      const rows = await runPreflight(config, [nvdFamily(config)], UA, { timeoutMs: 2000 });
      const row = rows.find((r) => r.family === "nvd" && r.upstream === "nvd");
      assert.equal(row?.state, "blocker");
      assert.match(row?.detail ?? "", /HTTP 403 from .* \(refused\)/);
      assert.match(row?.fix ?? "", /NVD_API_KEY/);
      assert.equal(nvd.requests.length, 1);
    } finally {
      await nvd.close();
    }
  });
});
