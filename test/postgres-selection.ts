// Which test files run a second time on PostgreSQL (test/run-on-postgres.ts): those whose outcome the store
// decides. Everything else runs once, on SQLite. test/postgres-selection.test.ts keeps this list honest: every
// file in test/ is placed here on purpose, every family with tables of its own has tests on PostgreSQL, and
// every rule still matches a file.
import fs from "node:fs";
import path from "node:path";

export interface Rule {
  pattern: RegExp;
  why: string;
}

/** Rules over src/: a new test in one of these places runs on PostgreSQL without being named. */
export const SRC_ON_POSTGRES: Rule[] = [
  { pattern: /^src\/store\//, why: "the store's own tests: every repository on both dialects" },
  { pattern: /^src\/jobs\//, why: "the job queue, its lanes and leases live in the store" },
  { pattern: /^src\/abuse\//, why: "rate limits are counted in the store, across nodes" },
  {
    pattern: /^src\/upstream\/(budget|sec-nvd-throttle)\.test\.ts$/,
    why: "upstream budgets are booked in the store, across nodes",
  },
  { pattern: /^src\/x402\//, why: "the embedded facilitator's balances and nonce claims are in the store" },
  { pattern: /^src\/products\/llm\/upto-e2e\.test\.ts$/, why: "the upto scheme: the ledger records the use" },
  {
    pattern: /^src\/products\/gov\/(shared|index)\//,
    why: "the title index, search chunks and bulk imports: SQL of their own per dialect",
  },
  {
    pattern: /^src\/products\/[^/]+(\/[^/]+)*\/import\.test\.ts$/,
    why: "bulk imports into a family's tables",
  },
  { pattern: /^src\/products\/nvd\/sync\.test\.ts$/, why: "the CVE sync writes the NVD tables" },
  { pattern: /^src\/products\/edgar\/warmers\.test\.ts$/, why: "the EDGAR warmers write the EDGAR tables" },
  { pattern: /^src\/products\/mountain\/data\//, why: "the mountain data import writes its tables" },
  {
    pattern: /^src\/products\/mountain\/osm\/warmer\.test\.ts$/,
    why: "the OSM warmer replaces a target's places while another writer of it may be at work",
  },
  {
    pattern: /^src\/features\/doctor\/(checkup\/|doctor\.e2e\.test\.ts$)/,
    why: "the doctor keeps checkups and orders in its own table",
  },
];

/** Every test file in test/, placed by hand: the cross-cutting suite has no folder to tell by. */
export const TEST_DIR: Record<string, { postgres: boolean; why: string }> = {
  "admin-cli.test.ts": { postgres: true, why: "the stats command reads the ledger's figures from the store" },
  "admin-counters.test.ts": { postgres: true, why: "daily counters are kept in the store" },
  "admin-hardening.test.ts": { postgres: true, why: "sign-in limits and sessions are kept in the store" },
  "admin-page.test.ts": { postgres: false, why: "the page in a browser; its figures are admin-stats' tests" },
  "admin-routes.test.ts": { postgres: true, why: "ledger listing and refunds" },
  "admin-stats.test.ts": { postgres: true, why: "the ledger's aggregates in SQL" },
  "bad-input.test.ts": { postgres: false, why: "400s before payment; nothing reaches the store" },
  "batch-lost-answers.test.ts": {
    postgres: true,
    why: "lost claims and settlements are decided against the pretend channel contract kept in the store",
  },
  "batch-drained.test.ts": {
    postgres: true,
    why: "channels drained on the pretend channel contract kept in the store; written off in the store's channels",
  },
  "batch-settlement-e2e.test.ts": {
    postgres: true,
    why: "batch-settlement channels, claims and the pretend channel contract are kept in the store",
  },
  "batch-node-killed.test.ts": {
    postgres: true,
    why: "a node killed holding batch-settlement vouchers; the retries on another node of the same PostgreSQL",
  },
  "batch-npm-start.test.ts": {
    postgres: false,
    why: "npm start and the faucet as processes on SQLite; the channels' store is the batch e2e tests'",
  },
  "batch-two-nodes.test.ts": {
    postgres: true,
    why: "two nodes share one store's batch-settlement channels: one voucher is taken once",
  },
  "batch-withdrawal.test.ts": {
    postgres: true,
    why: "the buyer's timed withdrawal on the pretend channel contract kept in the store",
  },
  "bazaar-valid.test.ts": { postgres: false, why: "the 402's Bazaar declarations" },
  "body-limit.test.ts": { postgres: false, why: "the request size limit" },
  "build-js.test.ts": { postgres: false, why: "npm start's build of dist/" },
  "cdp-facilitator.test.ts": { postgres: false, why: "the CDP facilitator client's authentication" },
  "challenge-template.test.ts": { postgres: false, why: "the 402's bytes" },
  "cli.test.ts": { postgres: false, why: "the command line" },
  "cold-probe.test.ts": { postgres: false, why: "what an agent sees without paying" },
  "control-characters.test.ts": { postgres: false, why: "input validation" },
  "discovery.test.ts": { postgres: false, why: "discovery documents" },
  "disk-full.test.ts": { postgres: false, why: "a full disk under SQLite (skipped on PostgreSQL)" },
  "facilitator-client.test.ts": { postgres: false, why: "the facilitator client against stubs" },
  "facilitator-config.test.ts": { postgres: false, why: "configuration" },
  "facilitator-failover.test.ts": { postgres: true, why: "facilitator health is shared through the store" },
  "family-boundary.test.ts": { postgres: false, why: "a family's context, checked in types" },
  "family-availability.test.ts": { postgres: false, why: "a family's settings at start" },
  "fault-matrix.test.ts": { postgres: true, why: "the paid path's ledger under every fault" },
  "fuzz-routes.test.ts": { postgres: false, why: "bad input on every route" },
  "header-codec.test.ts": { postgres: false, why: "header encoding" },
  "http-hygiene.test.ts": { postgres: false, why: "HTTP headers and methods" },
  "indexers.test.ts": { postgres: false, why: "indexers' view of the 402" },
  "layers.test.ts": { postgres: false, why: "import rules" },
  "mcp-bindings.test.ts": { postgres: false, why: "MCP tool listing and 402 bindings" },
  "mcp-bridge.test.ts": { postgres: false, why: "the MCP bridge process" },
  "mcp-arguments.test.ts": {
    postgres: false,
    why: "MCP tool arguments escaped as the HTTP route reads them",
  },
  "mcp-e2e.test.ts": { postgres: true, why: "paid calls over MCP" },
  "mcp-settlement.test.ts": { postgres: true, why: "settlement over MCP and its ledger" },
  "multinode.test.ts": { postgres: true, why: "several nodes sharing one store" },
  "oversize-challenge-warning.test.ts": { postgres: false, why: "a warning at start" },
  "payment-signature-size.test.ts": { postgres: false, why: "the size of what buyers sign" },
  "paid-in-flight.test.ts": { postgres: true, why: "the in-flight bound of the paid path" },
  "payment-e2e.test.ts": { postgres: true, why: "the paid path and its ledger" },
  "postgres-restart.test.ts": { postgres: true, why: "PostgreSQL restarting under the service" },
  "preflight.test.ts": { postgres: false, why: "the preflight command against stubs" },
  "readme-products.test.ts": { postgres: false, why: "the README's product table" },
  "receipts.test.ts": { postgres: true, why: "receipts of settled payments" },
  "reconcile-pending.test.ts": { postgres: true, why: "pending payments reconciled from the ledger" },
  "replay-and-samples.test.ts": { postgres: false, why: "free samples from the recordings" },
  "response-head-size.test.ts": { postgres: false, why: "response header sizes" },
  "run-tests.test.ts": { postgres: false, why: "the test runner itself" },
  "safe-retries-unknown.test.ts": { postgres: true, why: "retries of a payment whose fate is unknown" },
  "safe-retries.test.ts": { postgres: true, why: "a retried payment answered from the store" },
  "settlement-solana.test.ts": { postgres: true, why: "Solana settlement and its ledger" },
  "solana-buyers.test.ts": {
    postgres: true,
    why: "Solana buyers' payments and replays across nodes, on the ledger",
  },
  "solana-faults.test.ts": {
    postgres: true,
    why: "replays, lost settles and two nodes on one store, on Solana",
  },
  "solana-node-killed.test.ts": {
    postgres: true,
    why: "a node killed holding Solana payments; the retry on another node of the same PostgreSQL",
  },
  "solana-npm-start.test.ts": {
    postgres: false,
    why: "npm start and the faucet as processes; the ledger is the payment tests'",
  },
  "solana-payment.test.ts": { postgres: true, why: "the Solana paid path and its ledger" },
  "solana-refusals.test.ts": {
    postgres: true,
    why: "refused transactions leave the ledger untouched; a replay on a second facilitator",
  },
  "solana-rpc.test.ts": { postgres: false, why: "the pretend RPC's answers over the pretend chain's clock" },
  "settlement-two-nodes.test.ts": { postgres: true, why: "two nodes settling against one store" },
  "settlement-unknown.test.ts": { postgres: true, why: "settlements of unknown outcome in the ledger" },
  "shutdown.test.ts": { postgres: true, why: "payments in flight at shutdown" },
  "solana-requirements.test.ts": { postgres: false, why: "the Solana 402 requirements" },
  "postgres-selection.test.ts": { postgres: false, why: "this list" },
};

/** Every test file of the suite (as the README's command finds them), relative to the repository. */
export function testFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(relative);
      } else if (entry.name.endsWith(".test.ts")) found.push(relative);
    }
  };
  walk("src");
  walk("test");
  return found.sort();
}

/**
 * A family with tables of its own (it declares migrations) runs its end-to-end tests on PostgreSQL too: its
 * queries differ by dialect. Other families' routes answer from the cache, which the store's tests cover.
 */
export function familiesWithTables(root: string): string[] {
  const products = path.join(root, "src/products");
  return fs
    .readdirSync(products, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && declaresMigrations(path.join(products, entry.name)))
    .map((entry) => entry.name);
}

function declaresMigrations(dir: string): boolean {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) continue;
    if (/\bmigrations\s*[:=]/.test(fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8")))
      return true;
  }
  return false;
}

export function runsOnPostgres(file: string, withTables: string[]): boolean {
  if (file.startsWith("test/")) return TEST_DIR[file.slice("test/".length)]?.postgres ?? true;
  if (SRC_ON_POSTGRES.some((rule) => rule.pattern.test(file))) return true;
  const family = /^src\/products\/([^/]+)\/.*e2e\.test\.ts$/.exec(file)?.[1];
  return family !== undefined && withTables.includes(family);
}

/** The files of the PostgreSQL run. */
export function postgresFiles(root: string): string[] {
  const withTables = familiesWithTables(root);
  return testFiles(root).filter((file) => runsOnPostgres(file, withTables));
}
