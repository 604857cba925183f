// kill -9 of a node holding Solana payments, as multinode.test.ts does it on Base: two API nodes as real processes
// on one PostgreSQL, each with its own data folder and the embedded local facilitator, sharing the settings a
// cluster shares (PAY_TO_SOLANA, LOCAL_SOLANA_FEE_PAYER_KEY). Buyers pay with the unmodified @x402/svm exact client.
// Node A is killed at exact points, found by holding its writes in PostgreSQL (pg-hold.ts): one payment right after
// its facilitator settled it, before A recorded or answered it; another in its settlement, before the transfer
// landed. The buyers retry on node B with the same payments: the settled one gets its answer exactly once and is
// charged once; the other, once its blockhash expired unspent, gets payment_expired and is charged nothing.
// Runs in the PostgreSQL test run (npm run test:postgres); skipped on SQLite.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { startTestService, type TestService } from "./harness.ts";
import { eventually, NodeFleet, type NodeProcess } from "./node-process.ts";
import { holdWrites } from "./pg-hold.ts";
import { newSolanaSecretKey, SOLANA_RPC_PATH, signedSolanaHeader, solanaScheme } from "./solana-client.ts";
import { TEST_DATABASE_URL, type TestDatabase, testDatabase } from "./test-store.ts";

const skip = TEST_DATABASE_URL ? false : "needs PostgreSQL (npm run test:postgres)";
const SOLANA = NETWORKS.solana;
const PRICE = 5000n;
const ONE_USD = 1_000_000n;
/**
 * Signed this many blocks (of 150) after its blockhash: 24 s left, enough for node A to take the payment (it
 * wants 5 s of handler time and 10 s to settle), gone before node B may judge it (MAX_TIMEOUT_SECONDS + 10 s).
 */
const SHORT_LIVED_AGE = 90;

describe("a node killed holding Solana payments; the buyers retry on another node", { skip }, () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let observer: TestService;
  const fleet = new NodeFleet("paycall-solana-node-");
  let b: NodeProcess;
  let payTo: string;

  const startNode = () => fleet.start(env);

  before(async () => {
    database = testDatabase();
    payTo = (await generateKeyPairSigner()).address;
    env = {
      ...database.env,
      NETWORKS: "solana",
      ROLE: "serve",
      UPSTREAMS: "replay",
      RUN_WARMERS: "false",
      PUBLIC_URL: "http://paycall.cluster.test",
      PAY_TO_SOLANA: payTo,
      LOCAL_SOLANA_FEE_PAYER_KEY: (await newSolanaSecretKey()).secretKey,
      // Short authorisations, so node B may judge a row node A left pending within the test.
      FACILITATOR_TIMEOUT_MS: "5000",
      MAX_TIMEOUT_SECONDS: "30",
      LOG_LEVEL: "info",
    };
    // The test's own view of the store: it fills the ECB cache, credits buyers and reads the ledgers.
    observer = await startTestService({ ...env, LOG_LEVEL: "silent" });
    await observer.worker.runWarmer("ecb.fx");
    b = await startNode();
  });
  after(async () => {
    await fleet.stopAll();
    await observer.stop();
    await database.drop();
  });

  async function buyer(): Promise<KeyPairSigner> {
    const signer = await generateKeyPairSigner();
    await creditWallet(observer.store, SOLANA, signer.address, "1");
    return signer;
  }

  const balance = (address: string) => observer.store.localUsdc.balance(SOLANA.caip2, address);
  const rowsOf = async (payer: string) =>
    (await observer.store.ledger.list({ limit: 1000 })).filter((r) => r.payer === payer);
  const transfersOf = (payer: string) => observer.store.localUsdc.transfersOf(SOLANA.caip2, payer, 10);

  interface Answer {
    status: number;
    headers: Headers;
    body: { error?: string; message?: string; pair?: string };
  }

  /** The buyer's retry on node B, repeated while B says the payment is held by the request that died. */
  function retryOnB(route: string, header: string, until: (answer: Answer) => boolean): Promise<Answer> {
    return eventually(
      async () => {
        const response = await fetch(b.url + route, { headers: { "payment-signature": header } });
        const answer: Answer = {
          status: response.status,
          headers: response.headers,
          body: (await response.json()) as Answer["body"],
        };
        if (until(answer)) return answer;
        assert.equal(answer.status, 402, JSON.stringify(answer.body));
        assert.equal(answer.body.error, "payment_already_used");
        assert.match(answer.body.message ?? "", /held by a request still running/);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return undefined;
      },
      70_000,
      "node B to judge the payment node A left",
    );
  }

  const SETTLED_ROUTE = "/v1/macro/ecb/fx?pair=CHF";
  const UNSETTLED_ROUTE = "/v1/macro/ecb/fx?pair=NOK";

  const hold = (table: string, event: "insert" | "update", when: string) =>
    holdWrites(TEST_DATABASE_URL as string, database.env.DATABASE_SCHEMA as string, table, event, when);

  /**
   * A new node A takes both payments and is killed with SIGKILL once the first is settled (its record held) and
   * the second is in its settlement (its transfer held). The buyers' requests are cut off; their headers returned.
   */
  async function killNodeAHolding(settledBuyer: KeyPairSigner, unsettledBuyer: KeyPairSigner) {
    const a = await startNode();
    const rpcUrl = `${a.url}${SOLANA_RPC_PATH}`;
    const settledHold = await hold("ledger", "update", "NEW.state = 'settled'");
    const transferHold = await hold(
      "local_usdc_transfers",
      "insert",
      `NEW.payer = '${unsettledBuyer.address}'`,
    );
    const toA = (route: string, header: string) =>
      fetch(a.url + route, { headers: { "payment-signature": header } }).then(
        (r) => `answered ${r.status}`,
        () => "cut off",
      );
    const settledHeader = await signedSolanaHeader(solanaScheme(settledBuyer, rpcUrl), a.url + SETTLED_ROUTE);
    const settledOnA = toA(SETTLED_ROUTE, settledHeader);
    await settledHold.reached();
    const unsettledHeader = await signedSolanaHeader(
      solanaScheme(unsettledBuyer, rpcUrl, SHORT_LIVED_AGE),
      a.url + UNSETTLED_ROUTE,
    );
    const unsettledOnA = toA(UNSETTLED_ROUTE, unsettledHeader);
    await transferHold.reached();
    a.child.kill("SIGKILL");
    await a.exited;
    await settledHold.release();
    await transferHold.release();
    assert.deepEqual(await Promise.all([settledOnA, unsettledOnA]), ["cut off", "cut off"]);
    return { settledHeader, unsettledHeader };
  }

  test("one payment settled and not answered, one in its settlement: answered once, and refused unspent", async () => {
    const settledBuyer = await buyer();
    const unsettledBuyer = await buyer();
    const payToBefore = await balance(payTo);
    const { settledHeader, unsettledHeader } = await killNodeAHolding(settledBuyer, unsettledBuyer);

    // What A left: the first transfer landed and its row is pending; the second never landed.
    assert.equal(await balance(settledBuyer.address), ONE_USD - PRICE);
    assert.equal(await balance(unsettledBuyer.address), ONE_USD);
    const rows = [...(await rowsOf(settledBuyer.address)), ...(await rowsOf(unsettledBuyer.address))];
    assert.deepEqual(
      rows.map((r) => r.state),
      ["pending", "pending"],
    );

    const [answered, refused] = await Promise.all([
      retryOnB(SETTLED_ROUTE, settledHeader, (answer) => answer.status === 200),
      retryOnB(UNSETTLED_ROUTE, unsettledHeader, (answer) => answer.body.error === "payment_expired"),
    ]);
    await assertAnsweredOnce(answered, settledBuyer.address, SETTLED_ROUTE, settledHeader);
    await assertRefusedUnspent(refused, unsettledBuyer.address);
    assert.equal((await balance(payTo)) - payToBefore, PRICE, "the pay-to received one price");
  });

  async function assertAnsweredOnce(answer: Answer, payer: string, route: string, header: string) {
    assert.equal(answer.body.pair, "EURCHF");
    const receipt = decodePaymentResponseHeader(answer.headers.get("payment-response") as string);
    const transfers = await transfersOf(payer);
    assert.deepEqual(
      transfers.map((t) => [t.tx_hash, t.status, t.amount]),
      [[receipt.transaction, "success", String(PRICE)]],
      "one transfer, the one the receipt names",
    );
    const rows = await rowsOf(payer);
    assert.deepEqual(
      rows.map((r) => [r.state, r.transaction, r.delivered]),
      [["settled", receipt.transaction, 1]],
      "one sale, settled and delivered",
    );
    const again = await fetch(b.url + route, { headers: { "payment-signature": header } });
    assert.equal(again.status, 402);
    assert.equal(((await again.json()) as { error: string }).error, "payment_already_used");
    assert.equal(await balance(payer), ONE_USD - PRICE, "charged once");
  }

  async function assertRefusedUnspent(refusal: Answer, payer: string) {
    assert.equal(refusal.status, 402);
    assert.deepEqual(await transfersOf(payer), []);
    const rows = await rowsOf(payer);
    assert.deepEqual(
      rows.map((r) => [r.state, r.transaction]),
      [["failed", null]],
    );
    assert.match(rows[0]?.error_reason ?? "", /not charged/);
    assert.equal(await balance(payer), ONE_USD, "charged nothing");
  }
});
