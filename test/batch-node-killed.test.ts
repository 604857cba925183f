// kill -9 of a node between accepting a batch-settlement voucher and answering: two API nodes as real processes on
// one PostgreSQL, each with its own data folder and the embedded local facilitator, sharing what a cluster shares
// (PAY_TO_EVM, BATCH_RECEIVER_AUTHORIZER_KEY). Two buyers pay with the SDK's own batch-settlement client. Node A
// takes one voucher of each and is killed at exact points, found by holding its writes in PostgreSQL
// (pg-hold.ts): the first voucher accepted (its channel reserved, its pending ledger row written, its handler run)
// and its increment not committed; the second's increment committed and its sale not yet recorded, so its answer
// never left. The buyers retry the same vouchers on node B and go on with their next calls: each gets every
// answer once, pays each cumulative total once, and the channel manager's claim moves exactly what was delivered.
// Runs in the PostgreSQL test run (npm run test:postgres); skipped on SQLite.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { decodePaymentResponseHeader } from "@x402/fetch";
import type { PrivateKeyAccount } from "viem/accounts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { type BatchBuyer, batchBuyer, localEvmRpcUrl, pretendChain, signedVoucher } from "./batch-client.ts";
import { newBuyer, startTestService, type TestService } from "./harness.ts";
import { eventually, NodeFleet, type NodeProcess } from "./node-process.ts";
import { holdWrites } from "./pg-hold.ts";
import { TEST_DATABASE_URL, type TestDatabase, testDatabase } from "./test-store.ts";

const skip = TEST_DATABASE_URL ? false : "needs PostgreSQL (npm run test:postgres)";
const base = NETWORKS.base;
const PRICE = 10_000n; // the route's $0.01
const DEPOSIT = PRICE * 10n; // the 402's minimum deposit: ten calls
const ONE_USD = 1_000_000n;
const PAY_TO = "0x00000000000000000000000000000000000000cc";
const ROUTE = "/v1/weather/noaa?lat=39.7456&lon=-97.0892";

interface Buyer extends BatchBuyer {
  account: PrivateKeyAccount;
  channelId: `0x${string}`;
}

interface Answer {
  status: number;
  error?: string;
  message?: string;
  receipt: string | null;
  required: string | null;
}

describe("a node killed between accepting a voucher and answering; the buyers retry on another node", {
  skip,
}, () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let observer: TestService;
  const fleet = new NodeFleet("paycall-batch-node-");
  let b: NodeProcess;

  const startNode = () => fleet.start(env);

  before(async () => {
    database = testDatabase();
    env = {
      ...database.env,
      NETWORKS: "base",
      ROLE: "serve",
      UPSTREAMS: "replay",
      RUN_WARMERS: "false",
      PUBLIC_URL: "http://paycall.cluster.test",
      PAY_TO_EVM: PAY_TO,
      BATCH_RECEIVER_AUTHORIZER_KEY: `0x${"6e".repeat(32)}`,
      // Short authorisations: a voucher's reservation lasts MAX_TIMEOUT_SECONDS, and node B may judge a row
      // node A left pending MAX_TIMEOUT_SECONDS + 10 s after it was written.
      FACILITATOR_TIMEOUT_MS: "5000",
      MAX_TIMEOUT_SECONDS: "30",
      RATE_LIMIT_PER_MIN: "100000",
      RATE_LIMIT_EXPENSIVE_PER_MIN: "100000",
      LOG_LEVEL: "info",
    };
    // The test's own view of the store: it credits buyers, reads the ledger and runs the channel manager.
    observer = await startTestService({ ...env, LOG_LEVEL: "silent" });
    b = await startNode();
  });
  after(async () => {
    await fleet.stopAll();
    await observer?.stop();
    await database?.drop();
  });

  /** A funded buyer whose channel is open on node B: its deposit and one voucher paid. */
  async function buyer(): Promise<Buyer> {
    const account = newBuyer();
    await creditWallet(observer.store, base, account.address, "1");
    const paying = batchBuyer(account, { rpcUrl: localEvmRpcUrl(b.url) });
    let channelId: `0x${string}` | undefined;
    for (let call = 1; call <= 2; call++) {
      const answer = await paidCall(paying.pay);
      assert.equal(answer.status, 200, `call ${call}: ${answer.error}`);
      channelId = chargedOf(answer).channelId;
    }
    return { ...paying, account, channelId: channelId as `0x${string}` };
  }

  async function paidCall(pay: typeof fetch, header?: string): Promise<Answer> {
    const url = b.url + ROUTE;
    const response = header ? await fetch(url, { headers: { "payment-signature": header } }) : await pay(url);
    const body = (await response.json()) as { error?: string; message?: string };
    return {
      status: response.status,
      ...(response.status === 200 ? {} : { error: body.error, message: body.message }),
      receipt: response.headers.get("payment-response"),
      required: response.headers.get("payment-required"),
    };
  }

  function chargedOf(answer: Answer): { channelId: `0x${string}`; charged?: string } {
    const receipt = decodePaymentResponseHeader(answer.receipt as string);
    const state = (
      receipt.extra as { channelState?: { channelId: `0x${string}`; chargedCumulativeAmount: string } }
    )?.channelState;
    return { channelId: state?.channelId as `0x${string}`, charged: state?.chargedCumulativeAmount };
  }

  /** The buyer's retry of `header` on node B, repeated while B says the voucher is held by the call that died. */
  function retryOnB(header: string, until: (answer: Answer) => boolean): Promise<Answer[]> {
    const seen: Answer[] = [];
    return eventually(
      async () => {
        const answer = await paidCall(fetch, header);
        seen.push(answer);
        if (until(answer)) return seen;
        assert.equal(answer.status, 402, JSON.stringify(answer));
        assert.equal(answer.error, "payment_already_used");
        assert.match(answer.message ?? "", /held by a request still running/);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return undefined;
      },
      80_000,
      "node B to judge the voucher node A left",
    );
  }

  const hold = (table: string, event: "insert" | "update", when: string) =>
    holdWrites(TEST_DATABASE_URL as string, database.env.DATABASE_SCHEMA as string, table, event, when);

  const salesOf = async (channelId: string) =>
    (await observer.store.ledger.list({ limit: 1000 }))
      .filter((r) => r.batch_channel?.toLowerCase() === channelId.toLowerCase())
      .map((r) => [r.state, r.batch_cumulative, r.delivered])
      .sort((x, y) => Number(x[1]) - Number(y[1]) || String(x[0]).localeCompare(String(y[0])));

  test("a voucher accepted and not committed is paid once on the retry; one committed is answered free; the claim moves what was delivered", async () => {
    const reserved = await buyer();
    const committed = await buyer();
    const a = await startNode();
    const third = (PRICE * 3n).toString();
    // (a) the increment's write: the voucher was reserved, its row opened and its handler run.
    const commitHold = await hold(
      "batch_channels",
      "insert",
      `NEW.channel_id = '${reserved.channelId.toLowerCase()}' and NEW.charged_cumulative = '${third}'`,
    );
    // (b) the sale's record: the increment committed just before it, in the step that lets the answer leave.
    const recordHold = await hold(
      "ledger",
      "update",
      `lower(NEW.batch_channel) = '${committed.channelId.toLowerCase()}' and NEW.state = 'settled'`,
    );
    const toA = (header: string) =>
      fetch(a.url + ROUTE, { headers: { "payment-signature": header } }).then(
        (r) => `answered ${r.status}`,
        () => "cut off",
      );
    const reservedVoucher = await signedVoucher(reserved.scheme, a.url + ROUTE);
    const reservedOnA = toA(reservedVoucher.header);
    await commitHold.reached();
    const committedVoucher = await signedVoucher(committed.scheme, a.url + ROUTE);
    const committedOnA = toA(committedVoucher.header);
    await recordHold.reached();
    a.child.kill("SIGKILL");
    await a.exited;
    await commitHold.release();
    await recordHold.release();
    assert.deepEqual(await Promise.all([reservedOnA, committedOnA]), ["cut off", "cut off"]);

    // What A left: both rows pending; the first channel still at two calls, reserved; the second at three.
    assert.deepEqual(await salesOf(reserved.channelId), [
      ["settled", PRICE.toString(), 1],
      ["settled", (PRICE * 2n).toString(), 1],
      ["pending", third, 0],
    ]);
    assert.deepEqual(await salesOf(committed.channelId), [
      ["settled", PRICE.toString(), 1],
      ["settled", (PRICE * 2n).toString(), 1],
      ["pending", third, 0],
    ]);
    const left = await observer.store.channels.get(base.caip2, reserved.channelId);
    assert.equal(left?.chargedCumulativeAmount, (PRICE * 2n).toString());
    assert.equal(left?.pendingRequest?.signedMaxClaimable, third);
    assert.equal(
      (await observer.store.channels.get(base.caip2, committed.channelId))?.chargedCumulativeAmount,
      third,
    );

    const [reservedRetries, committedRetries] = await Promise.all([
      retryOnB(reservedVoucher.header, (answer) => answer.error === "payment_expired"),
      retryOnB(committedVoucher.header, (answer) => answer.status === 200),
    ]);

    // (a) Not charged: the reservation lapsed without its commit. The same voucher then pays for its answer.
    assert.match(reservedRetries.at(-1)?.message ?? "", /nothing was charged/);
    const paid = await paidCall(fetch, reservedVoucher.header);
    assert.equal(paid.status, 200);
    assert.equal(chargedOf(paid).charged, third);
    // (b) Charged by A's commit: the retry gets the answer, not charged again. Sent once more, it is refused
    // with the channel's state (the corrective 402), from which the buyer's client signs its next voucher.
    assert.equal(committedRetries.at(-1)?.status, 200);
    const again = await paidCall(fetch, committedVoucher.header);
    assert.equal(again.status, 402);
    const corrective = decodePaymentRequiredHeader(again.required as string);
    assert.match(corrective.error ?? "", /cumulative_amount_mismatch/);
    const state = corrective.accepts.find((x) => x.scheme === "batch-settlement")?.extra?.channelState as
      | { chargedCumulativeAmount?: string }
      | undefined;
    assert.equal(state?.chargedCumulativeAmount, third);

    // Neither channel is stuck: each buyer's client pays its next call (a corrective 402 tells it the total).
    for (const who of [reserved, committed]) {
      const next = await paidCall(who.pay);
      assert.equal(next.status, 200, `${next.error}: ${next.message}`);
      assert.equal(chargedOf(next).charged, (PRICE * 4n).toString());
    }
    assert.deepEqual(await salesOf(reserved.channelId), [
      ["settled", PRICE.toString(), 1],
      ["settled", (PRICE * 2n).toString(), 1],
      ["failed", third, 0],
      ["settled", third, 1],
      ["settled", (PRICE * 4n).toString(), 1],
    ]);
    assert.deepEqual(await salesOf(committed.channelId), [
      ["settled", PRICE.toString(), 1],
      ["settled", (PRICE * 2n).toString(), 1],
      ["settled", third, 1],
      ["settled", (PRICE * 4n).toString(), 1],
    ]);

    // Four answers each, four prices each: the claim and settlement move exactly that, the refunds the rest.
    const chain = pretendChain(localEvmRpcUrl(b.url));
    const rounds = (await observer.paywall()?.batch?.flush()) ?? [];
    assert.deepEqual(
      rounds.flatMap((r) => r.operations.map((o) => [o.kind, o.state, o.amount])),
      [
        ["claim", "done", (PRICE * 8n).toString()],
        ["settle", "done", (PRICE * 8n).toString()],
      ],
    );
    for (const who of [reserved, committed]) {
      assert.deepEqual(await chain.channel(who.channelId), { balance: DEPOSIT, totalClaimed: PRICE * 4n });
      const refund = await who.scheme.refund(b.url + ROUTE);
      assert.equal(refund.success, true, JSON.stringify(refund));
      assert.equal(await chain.usdc(who.account.address), ONE_USD - PRICE * 4n);
    }
    assert.equal(await chain.usdc(PAY_TO), PRICE * 8n);
    assert.deepEqual(await chain.receiver(PAY_TO), { totalClaimed: PRICE * 8n, totalSettled: PRICE * 8n });
    assert.equal(await chain.usdc(chain.contract), 0n);
  });
});
