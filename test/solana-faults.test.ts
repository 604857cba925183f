// The payment faults Base is tested for, on Solana with the local facilitator's pretend chain: one transaction
// replayed 50 times at once is delivered once; presented to two nodes on one store, once; a settle whose answer was
// lost is decided by the chain through the pretend JSON-RPC (found: delivered on the buyer's retry; never sent and
// its blockhash expired: payment_expired, nothing charged).
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { generateKeyPairSigner } from "@solana/kit";
import { decodePaymentResponseHeader } from "@x402/fetch";
import type { Service } from "../src/service.ts";
import { devSolanaPayTo } from "../src/x402/facilitator/dev-wallets.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { startTestService, type TestService } from "./harness.ts";
import { eventually } from "./node-process.ts";
import { SOLANA_RPC_PATH, signedSolanaHeader, solanaScheme } from "./solana-client.ts";
import { type TestDatabase, testDatabase } from "./test-store.ts";

const SOLANA = NETWORKS.solana;

const settledFor = async (store: Service["store"], payer: string) =>
  (await store.ledger.list()).filter((r) => r.state === "settled" && r.payer === payer);

describeOneNode();
describeTwoNodes();
describeLostSettle();

function describeOneNode() {
  let service: TestService;
  before(async () => {
    service = await startTestService({ NETWORKS: "base,solana" });
    await service.worker.runWarmer("ecb.fx");
  });
  after(() => service.stop());

  test("one Solana transaction replayed 50 times at once: one 200, 49 refusals, one ledger row, debited once", async () => {
    const buyer = await generateKeyPairSigner();
    await creditWallet(service.store, SOLANA, buyer.address, "1");
    const url = `${service.url}/v1/macro/ecb/fx?pair=CHF`;
    const header = await signedSolanaHeader(solanaScheme(buyer, `${service.url}${SOLANA_RPC_PATH}`), url);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => fetch(url, { headers: { "payment-signature": header } })),
    );
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(",")}`);
    const refused = await Promise.all(
      responses.filter((r) => r.status !== 200).map((r) => r.json() as Promise<{ error: string }>),
    );
    assert.equal(refused.length, 49);
    assert.ok(
      refused.every((b) => b.error === "payment_already_used"),
      refused.map((b) => b.error).join(","),
    );
    assert.equal((await settledFor(service.store, buyer.address)).length, 1);
    assert.equal(await service.store.localUsdc.balance(SOLANA.caip2, buyer.address), 1_000_000n - 5000n);
  });
}

function describeTwoNodes() {
  let database: TestDatabase;
  let dir: string;
  const nodes: TestService[] = [];
  before(async () => {
    database = testDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-solana-two-"));
    // In process, one DATA_DIR: one store (SQLite there unless PostgreSQL is given) and the same development keys.
    for (const role of ["serve", "serve"]) {
      const service = await startTestService({
        ...database.env,
        DATA_DIR: dir,
        ROLE: role,
        NETWORKS: "base,solana",
      });
      nodes.push(service);
    }
    await (nodes[0] as TestService).worker.runWarmer("ecb.fx");
  });
  after(async () => {
    for (const node of nodes) await node.stop();
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("one Solana transaction presented to two nodes at once is delivered once and debited once", async () => {
    const [a, b] = nodes as [TestService, TestService];
    const buyer = await generateKeyPairSigner();
    await creditWallet(a.store, SOLANA, buyer.address, "1");
    const route = "/v1/macro/ecb/fx?pair=NOK";
    const header = await signedSolanaHeader(
      solanaScheme(buyer, `${a.url}${SOLANA_RPC_PATH}`),
      `${a.url}${route}`,
    );
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(`${(i % 2 ? b : a).url}${route}`, { headers: { "payment-signature": header } }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(",")}`);
    assert.equal((await settledFor(a.store, buyer.address)).length, 1);
    assert.equal(await a.store.localUsdc.balance(SOLANA.caip2, buyer.address), 1_000_000n - 5000n);
  });
}

/**
 * A seller whose facilitator is the local facilitator of another paycall (the chain's side), reached through a
 * proxy that can lose the settle answer; the seller reads that chain through its pretend JSON-RPC over HTTP.
 */
function describeLostSettle() {
  let chain: TestService;
  let seller: TestService;
  let proxy: http.Server;
  let settleFault: "lose-answer" | "drop" | undefined;

  before(async () => {
    chain = await startTestService({ NETWORKS: "base,solana" });
    proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const fault = req.url?.endsWith("/settle") ? settleFault : undefined;
        if (fault === "drop") return; // never sent on: the transaction never lands
        const answer = await fetch(`${chain.url}/local-facilitator${req.url}`, {
          method: req.method,
          headers: { "content-type": "application/json" },
          ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {}),
        });
        const text = await answer.text();
        if (fault === "lose-answer") return; // settled on the chain, the answer never comes back
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(text);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    seller = await startTestService({
      NETWORKS: "solana",
      FACILITATOR_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      PAY_TO_SOLANA: (await devSolanaPayTo(chain.dataDir)).address,
      SOLANA_RPC_URL: `${chain.url}${SOLANA_RPC_PATH}`,
      FACILITATOR_TIMEOUT_MS: "1000",
    });
    await seller.worker.runWarmer("ecb.fx");
  });
  after(async () => {
    await seller.stop();
    proxy.closeAllConnections();
    proxy.close();
    await chain.stop();
  });

  test("settle answer lost after the transfer: 502, then the retry finds it on the chain and delivers, charged once", async () => {
    const buyer = await generateKeyPairSigner();
    await creditWallet(chain.store, SOLANA, buyer.address, "1");
    const url = `${seller.url}/v1/macro/ecb/fx?pair=SEK`;
    const header = await signedSolanaHeader(solanaScheme(buyer, `${chain.url}${SOLANA_RPC_PATH}`), url);
    settleFault = "lose-answer";
    const first = await fetch(url, { headers: { "payment-signature": header } });
    settleFault = undefined;
    assert.equal(first.status, 502, await first.clone().text());
    assert.equal(((await first.json()) as { error: string }).error, "settlement_unknown");
    // The transfer landed on the chain's ledger.
    await eventually(
      async () =>
        (await chain.store.localUsdc.balance(SOLANA.caip2, buyer.address)) === 1_000_000n - 5000n ||
        undefined,
      5_000,
      "the transfer to land",
    );

    const retry = await fetch(url, { headers: { "payment-signature": header } });
    assert.equal(retry.status, 200, await retry.clone().text());
    const settlement = decodePaymentResponseHeader(retry.headers.get("payment-response") as string);
    assert.equal(settlement.network, SOLANA.caip2);
    assert.equal(
      (await chain.store.localUsdc.transferRow(SOLANA.caip2, settlement.transaction))?.payer,
      buyer.address,
    );
    assert.equal(((await retry.json()) as { pair: string }).pair, "EURSEK");
    // Presented again, it is not charged again.
    await fetch(url, { headers: { "payment-signature": header } });
    assert.equal(await chain.store.localUsdc.balance(SOLANA.caip2, buyer.address), 1_000_000n - 5000n);
  });

  test("settle never sent: 503 while the blockhash lives, then payment_expired once it has expired, nothing charged", async () => {
    const buyer = await generateKeyPairSigner();
    await creditWallet(chain.store, SOLANA, buyer.address, "1");
    const url = `${seller.url}/v1/macro/ecb/fx?pair=DKK`;
    // Signed with a blockhash 130 of its 150 blocks old: it expires in about 8 s.
    const header = await signedSolanaHeader(solanaScheme(buyer, `${chain.url}${SOLANA_RPC_PATH}`, 130), url);
    settleFault = "drop";
    const first = await fetch(url, { headers: { "payment-signature": header } });
    settleFault = undefined;
    assert.equal(first.status, 502, await first.clone().text());

    const early = await fetch(url, { headers: { "payment-signature": header } });
    assert.equal(early.status, 503, await early.clone().text());

    const expired = await eventually(
      async () => {
        const response = await fetch(url, { headers: { "payment-signature": header } });
        return response.status === 402 ? ((await response.json()) as { error: string }) : undefined;
      },
      20_000,
      "the blockhash to expire",
    );
    assert.equal(expired.error, "payment_expired");
    assert.equal(await chain.store.localUsdc.balance(SOLANA.caip2, buyer.address), 1_000_000n);
  });
}
