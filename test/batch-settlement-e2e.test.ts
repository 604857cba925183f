// batch-settlement end to end against the service alone: the SDK's own batch-settlement client (x402Client,
// @x402/fetch) pays 200 calls through the local facilitator's pretend channel contract; the channel manager
// claims and settles them, the buyer asks for the rest back, and every balance on the pretend USDC ledger is
// exact to the atomic unit.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { batchBuyer } from "./batch-client.ts";
import { newBuyer, startListeningService, startTestService, type TestService } from "./harness.ts";
import { testFamily } from "./test-family.ts";

const base = NETWORKS.base;
const PRICE = 10_000n; // the test item's $0.01
const CALLS = 200;
const ADMIN_TOKEN = "operator-token-for-batch-tests";
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const run = promisify(execFile);

let service: TestService;

before(async () => {
  // A claim is due once the vouchers owe $1 (the default is $10). The key is set: on PostgreSQL it must be.
  service = await startTestService(
    {
      BATCH_CLAIM_THRESHOLD_USD: "1",
      BATCH_RECEIVER_AUTHORIZER_KEY: `0x${"3c".repeat(32)}`,
      ADMIN_TOKEN,
      WORKER_POLL_MS: "60000",
    },
    [testFamily],
  );
});
after(() => service.stop());

const balance = (address: string) => service.store.localUsdc.balance(base.caip2, address);

test("200 calls, one deposit: claimed and settled by the job, the rest refunded, every balance exact", async () => {
  const account = newBuyer();
  await creditWallet(service.store, base, account.address, "3");
  const payTo = service.config.payTo.evm as string;
  const sellerBefore = await balance(payTo);
  // One deposit worth 250 calls (the seller's 402 asks for ten calls' worth at least; the client tops its
  // channel up as it runs out).
  const deposit = PRICE * 250n;
  const { scheme, pay } = batchBuyer(account, { deposit });

  for (let call = 1; call <= CALLS; call++) {
    const response = await pay(`${service.url}/v1/test/item?mode=ok`);
    assert.equal(response.status, 200, `call ${call}`);
    await response.arrayBuffer();
  }
  const rows = await service.store.ledger.list({ limit: 1000 });
  const sales = rows.filter((r) => r.payer?.toLowerCase() === account.address.toLowerCase());
  assert.equal(sales.length, CALLS);
  assert.ok(sales.every((r) => r.state === "settled" && r.amount === PRICE.toString()));
  assert.equal(
    sales.filter((r) => r.transaction !== null).length,
    1,
    "one on-chain transaction: the deposit",
  );
  // The deposit left the buyer; nothing reached the seller yet.
  assert.equal(await balance(account.address), 3_000_000n - deposit);
  assert.equal(await balance(payTo), sellerBefore);

  // The job's beat: $2 owed passes the $1 threshold, so the vouchers are claimed and settled to the pay-to.
  const [round] = (await service.paywall()?.batch?.tick()) ?? [];
  assert.equal(round?.reason, "threshold");
  assert.deepEqual(
    round?.operations.map((o) => [o.kind, o.state, o.amount]),
    [
      ["claim", "done", (PRICE * BigInt(CALLS)).toString()],
      ["settle", "done", (PRICE * BigInt(CALLS)).toString()],
    ],
  );
  assert.equal(await balance(payTo), sellerBefore + PRICE * BigInt(CALLS));

  // The buyer asks for the rest back (the scheme's cooperative refund, through the seller).
  const refund = await scheme.refund(`${service.url}/v1/test/item?mode=ok`);
  assert.equal(refund.success, true, JSON.stringify(refund));
  assert.equal(await balance(account.address), 3_000_000n - PRICE * BigInt(CALLS));
  assert.equal(await balance(payTo), sellerBefore + PRICE * BigInt(CALLS));

  const figures = await service.store.batchOperations.figures();
  assert.equal(figures.calls, CALLS);
  assert.equal(figures.openChannels, 0);
  assert.equal(figures.heldAtomic, 0n);
  assert.equal(figures.claims.count, 1);
  assert.equal(figures.settlements.count, 1);
  assert.equal(figures.refunds.count, 1);
  assert.equal(figures.refunds.atomic, deposit - PRICE * BigInt(CALLS));
  // One deposit, one claim, one settlement, one refund: four transactions where exact takes 200.
  assert.equal(figures.transactions, 4);
});

test("the operator sees the channel in /admin/stats and /metrics, refunds it from /admin; the next beat settles", async () => {
  const account = newBuyer();
  await creditWallet(service.store, base, account.address, "1");
  const payTo = service.config.payTo.evm as string;
  const sellerBefore = await balance(payTo);
  const { pay } = batchBuyer(account);
  for (let call = 0; call < 3; call++)
    assert.equal((await pay(`${service.url}/v1/test/item?mode=ok`)).status, 200);

  const stats = (await (await fetch(`${service.url}/admin/stats`, { headers: admin })).json()) as any;
  const listed = stats.batch.channels.find(
    (c: any) => c.payer.toLowerCase() === account.address.toLowerCase(),
  );
  // The client deposited ten calls' worth (the 402's minimum); three were charged, none claimed yet.
  assert.equal(listed?.refundable.atomic, (PRICE * 7n).toString());
  assert.equal(listed?.unclaimed.atomic, (PRICE * 3n).toString());
  assert.ok(stats.batch.unclaimed.vouchers >= 3);
  const page = await (await fetch(`${service.url}/admin`, { headers: admin })).text();
  assert.match(page, /batch-settlement channels/);
  assert.ok(page.includes(`name="channel" value="${listed.channelId}"`), "the channel's Refund button");
  const metrics = await (await fetch(`${service.url}/metrics`, { headers: admin })).text();
  assert.match(metrics, /^paycall_batch_channels_open [1-9]/m);
  assert.match(metrics, /^paycall_batch_vouchers_unclaimed [1-9]/m);

  const refunded = await fetch(`${service.url}/admin/channels/refund`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ network: base.caip2, channel: listed.channelId }),
  });
  assert.equal(refunded.status, 201);
  assert.equal(((await refunded.json()) as any).operation.amount, (PRICE * 7n).toString());
  assert.equal(await balance(account.address), 1_000_000n - PRICE * 3n);
  assert.equal(await service.store.channels.get(base.caip2, listed.channelId), undefined);

  // The refund claimed the three calls in its own transaction; the next beat settles them to the pay-to.
  const rounds = (await service.paywall()?.batch?.tick()) ?? [];
  assert.deepEqual(
    rounds.map((r) => [r.reason, r.operations.map((o) => [o.kind, o.state, o.amount])]),
    [["unsettled", [["settle", "done", (PRICE * 3n).toString()]]]],
  );
  assert.equal(await balance(payTo), sellerBefore + PRICE * 3n);
});

test("npm run stats -- --refund-channel asks the running service to refund the channel", async () => {
  const listening = await startListeningService(
    { ADMIN_TOKEN, BATCH_RECEIVER_AUTHORIZER_KEY: `0x${"3c".repeat(32)}`, WORKER_POLL_MS: "60000" },
    [testFamily],
  );
  try {
    const account = newBuyer();
    await creditWallet(listening.store, base, account.address, "1");
    assert.equal((await batchBuyer(account).pay(`${listening.url}/v1/test/item?mode=ok`)).status, 200);
    const [channel] = await listening.store.channels.list(base.caip2);
    const { stdout } = await run(
      process.execPath,
      ["src/main.ts", "stats", "--refund-channel", base.caip2, channel?.channelId as string],
      {
        env: {
          PATH: process.env.PATH ?? "",
          ...listening.databaseEnv,
          DATA_DIR: listening.dataDir,
          PUBLIC_URL: listening.url,
          ADMIN_TOKEN,
          LOG_LEVEL: "silent",
        },
        timeout: 60_000,
      },
    );
    const { operation } = JSON.parse(stdout) as {
      operation: { kind: string; state: string; amount: string };
    };
    assert.deepEqual(
      [operation.kind, operation.state, operation.amount],
      ["refund", "done", (PRICE * 9n).toString()],
    );
    assert.equal(await listening.store.channels.get(base.caip2, channel?.channelId as string), undefined);
    assert.equal(await listening.store.localUsdc.balance(base.caip2, account.address), 1_000_000n - PRICE);
  } finally {
    await listening.stop();
  }
});
