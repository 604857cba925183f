// batch-settlement against the service started as `npm start` starts it (its prestart's build, then the built
// dist/src/main.js with the same node flags), alone: SQLite in a fresh DATA_DIR, the embedded local facilitator,
// its worker's beat running the channel manager. The faucet funds a buyer; the SDK's own batch-settlement client
// pays 200 calls with one deposit; the job claims and settles them; the buyer asks for the rest back; every
// balance is read from the running process's pretend EVM node, exact to the atomic unit.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { batchBuyer, localEvmRpcUrl, pretendChain } from "./batch-client.ts";
import { newBuyer } from "./harness.ts";
import { eventually, faucet, type NodeProcess, startNodeProcess } from "./node-process.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const PRICE = 10_000n; // the route's $0.01
const CALLS = 200;
const DEPOSIT = PRICE * 250n;
const FUNDED = 3_000_000n; // the faucet's $3
const PAY_TO = "0x00000000000000000000000000000000000000bb";
const ADMIN_TOKEN = "operator-token-for-batch-npm-start";
const ROUTE = "/v1/weather/noaa?lat=39.7456&lon=-97.0892";

/** `npm start` and its prestart as package.json writes them: node's flags and the module each runs. */
function npmStart(): { build: string[]; flags: string[]; main: string; env: Record<string, string> } {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const prestart = /^node (.+)$/.exec(scripts.prestart ?? "")?.[1]?.split(" ");
  const start = /^MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-(\d+)\} node (.+) (\S+\.js) serve$/.exec(
    scripts.start ?? "",
  );
  if (!prestart || !start) throw new Error("package.json's start or prestart changed: update this test");
  return {
    build: prestart,
    flags: (start[2] as string).split(" "),
    main: start[3] as string,
    env: { MALLOC_ARENA_MAX: start[1] as string },
  };
}

let dataDir: string;
let env: Record<string, string>;
let node: NodeProcess;

before(async () => {
  const start = npmStart();
  await run(process.execPath, start.build, { cwd: ROOT, timeout: 120_000 });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-batch-start-"));
  env = {
    ...start.env,
    DATA_DIR: dataDir,
    UPSTREAMS: "replay",
    RUN_WARMERS: "false",
    PAY_TO_EVM: PAY_TO,
    ADMIN_TOKEN,
    // A claim is due once the vouchers owe $2: the 200th call's, not one before it.
    BATCH_CLAIM_THRESHOLD_USD: "2",
    SCHEDULE_EVERY_MS: "500",
    RATE_LIMIT_PER_MIN: "100000",
    RATE_LIMIT_EXPENSIVE_PER_MIN: "100000",
  };
  node = await startNodeProcess(env, 60_000, start.main, start.flags);
});
after(async () => {
  await node?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function batchStats(): Promise<Record<string, any>> {
  const response = await fetch(`${node.url}/admin/stats`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as { batch: Record<string, any> }).batch;
}

test("npm start alone: 1 deposit, 200 answers, claimed and settled by the job, the rest refunded, balances exact", async () => {
  const account = newBuyer();
  assert.match(await faucet(env, account.address, "3"), /on base: balance 3 USD/);
  const rpcUrl = localEvmRpcUrl(node.url);
  const chain = pretendChain(rpcUrl);
  assert.equal(await chain.usdc(account.address), FUNDED);
  assert.equal(await chain.usdc(PAY_TO), 0n);

  const buyer = batchBuyer(account, { deposit: DEPOSIT, rpcUrl });
  let channelId: `0x${string}` | undefined;
  for (let call = 1; call <= CALLS; call++) {
    const response = await buyer.pay(`${node.url}${ROUTE}`);
    assert.equal(response.status, 200, `call ${call}: ${await response.clone().text()}`);
    await response.arrayBuffer();
    const receipt = decodePaymentResponseHeader(response.headers.get("payment-response") as string);
    const state = (
      receipt.extra as { channelState?: { channelId: `0x${string}`; chargedCumulativeAmount: string } }
    ).channelState;
    assert.equal(state?.chargedCumulativeAmount, (PRICE * BigInt(call)).toString(), `call ${call}`);
    channelId ??= state?.channelId;
  }
  assert.ok(channelId);
  // The deposit left the buyer for the channel contract; nothing reached the pay-to yet.
  assert.equal(await chain.usdc(account.address), FUNDED - DEPOSIT);
  assert.equal(await chain.usdc(chain.contract), DEPOSIT);

  // The worker's beat: $2 owed reaches the threshold, so the job claims the 200 vouchers and settles them.
  const charged = PRICE * BigInt(CALLS);
  await eventually(
    async () => ((await chain.receiver(PAY_TO)).totalSettled === charged ? true : undefined),
    30_000,
    "the job's claim and settlement",
  );
  assert.deepEqual(await chain.receiver(PAY_TO), { totalClaimed: charged, totalSettled: charged });
  assert.deepEqual(await chain.channel(channelId), { balance: DEPOSIT, totalClaimed: charged });
  assert.equal(await chain.usdc(PAY_TO), charged);
  assert.equal(await chain.usdc(chain.contract), DEPOSIT - charged);

  // The buyer asks for the rest back with the SDK client's refund flow.
  const refund = await buyer.scheme.refund(`${node.url}${ROUTE}`);
  assert.equal(refund.success, true, JSON.stringify(refund));
  assert.equal(await chain.usdc(account.address), FUNDED - charged);
  assert.equal(await chain.usdc(PAY_TO), charged);
  assert.equal(await chain.usdc(chain.contract), 0n);
  assert.deepEqual(await chain.channel(channelId), { balance: charged, totalClaimed: charged });

  // One deposit, one claim, one settlement, one refund: four transactions where exact takes 200.
  const stats = await batchStats();
  assert.equal(stats.calls, CALLS);
  assert.equal(stats.transactions, 4);
  assert.equal(stats.transactionsSaved, CALLS - 4);
  assert.deepEqual(
    [stats.claims.count, stats.claims.atomic, stats.settlements.count, stats.settlements.atomic],
    [1, charged.toString(), 1, charged.toString()],
  );
  assert.deepEqual([stats.refunds.count, stats.refunds.atomic], [1, (DEPOSIT - charged).toString()]);
  assert.equal(stats.openChannels, 0);
});
