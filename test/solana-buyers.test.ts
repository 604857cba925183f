// Paying on Solana from the buyers paycall ships: `npm run buy -- --network solana` (the development Solana key or
// BUYER_SOLANA_KEY) and `npm run mcp-buy --network solana`, against a service with NETWORKS=base,solana and the
// local facilitator; and a transaction whose blockhash is about to expire is refused before its handler runs.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  createKeyPairSignerFromBytes,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase58Encoder,
  type KeyPairSigner,
} from "@solana/kit";
import type { PaymentRequirements, SchemeNetworkClient } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { buy, CliError, parseBuyArgs } from "../src/buyer/buy.ts";
import { loadConfig } from "../src/config.ts";
import { RECEIPTS_FILE } from "../src/mcp-bridge/options.ts";
import { devSolanaBuyer, devSolanaPayTo } from "../src/x402/facilitator/dev-wallets.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { blockHeightAt, blockhashOf } from "../src/x402/facilitator/solana-blocks.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { startListeningService, type TestService } from "./harness.ts";

const SOLANA = NETWORKS.solana;
const MAIN = path.resolve(import.meta.dirname, "../src/main.ts");
const FX = "/v1/macro/ecb/fx?pair=JPY";
let service: TestService;

before(async () => {
  // A listener: the MCP bridge runs as a process of its own and reaches the service over the network.
  service = await startListeningService({ NETWORKS: "base,solana" });
  await service.worker.runWarmer("ecb.fx");
});
after(() => service.stop());

function buyerConfig() {
  return loadConfig({ ...service.databaseEnv, DATA_DIR: service.dataDir, PUBLIC_URL: service.url });
}

const balance = (address: string) => service.store.localUsdc.balance(SOLANA.caip2, address);
const settledRows = async (payer: string) =>
  (await service.store.ledger.list()).filter((r) => r.state === "settled" && r.payer === payer);

test("npm run buy -- --network solana pays with the credited development key and prints what Base prints", async () => {
  const lines: string[] = [];
  const code = await buy(
    buyerConfig(),
    parseBuyArgs([FX, "--network", "solana"]),
    (line) => lines.push(line),
    {},
  );
  assert.equal(code, 0, lines.join("\n"));
  assert.equal(lines[0], "status: 200 OK");
  const payTo = (await devSolanaPayTo(service.dataDir)).address;
  assert.equal(lines[1], `price paid: 0.005 USD on ${SOLANA.caip2} to ${payTo}`);
  const settlement = JSON.parse((lines[2] ?? "").replace(/^payment-response: /, "")) as {
    success: boolean;
    transaction: string;
    network: string;
  };
  assert.deepEqual([settlement.success, settlement.network], [true, SOLANA.caip2]);
  assert.match(lines[3] ?? "", /^receipt: [\w-]+\.[\w-]+\.[\w-]+$/);
  assert.equal((JSON.parse(lines.slice(4).join("\n")) as { pair: string }).pair, "EURJPY");

  const dev = await devSolanaBuyer(service.dataDir);
  assert.equal(fs.statSync(path.join(service.dataDir, "dev-solana-buyer.json")).mode & 0o777, 0o600);
  assert.equal(await balance(dev.address), 10_000_000n - 5000n);
  const rows = await settledRows(dev.address);
  assert.deepEqual(
    rows.map((r) => [r.transaction, r.network]),
    [[settlement.transaction, SOLANA.caip2]],
  );
});

test("BUYER_SOLANA_KEY pays from that key; a malformed one is refused naming the variable, nothing paid", async () => {
  const pair = generateKeyPairSync("ed25519");
  const exported = pair.privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
  const publicKey = pair.publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const secret = getBase58Decoder().decode(Uint8Array.from([...exported, ...publicKey]));
  const own = await createKeyPairSignerFromBytes(getBase58Encoder().encode(secret));
  await creditWallet(service.store, SOLANA, own.address, "1");

  const lines: string[] = [];
  const code = await buy(
    buyerConfig(),
    parseBuyArgs([FX, "--network", "solana"]),
    (line) => lines.push(line),
    { BUYER_SOLANA_KEY: secret },
  );
  assert.equal(code, 0, lines.join("\n"));
  assert.equal(await balance(own.address), 1_000_000n - 5000n);
  assert.equal((await settledRows(own.address)).length, 1);

  const rowsBefore = (await service.store.ledger.list()).length;
  for (const [bad, reason] of [
    ["not-base58-0OIl", /BUYER_SOLANA_KEY must be a base58 Solana secret key/],
    [secret.slice(0, 40), /BUYER_SOLANA_KEY must be a base58 Solana secret key of 64 bytes, got \d+ bytes/],
    [
      getBase58Decoder().decode(Uint8Array.from([...exported, ...new Uint8Array(32).fill(1)])),
      /BUYER_SOLANA_KEY is not a valid Solana key pair/,
    ],
  ] as const) {
    await assert.rejects(
      buy(buyerConfig(), parseBuyArgs([FX, "--network", "solana"]), () => {}, { BUYER_SOLANA_KEY: bad }),
      (error: unknown) => error instanceof CliError && reason.test(error.message),
    );
  }
  assert.equal((await service.store.ledger.list()).length, rowsBefore);
});

test("--scheme upto is refused on Solana before anything is signed", async () => {
  await assert.rejects(
    buy(buyerConfig(), parseBuyArgs([FX, "--network", "solana", "--scheme", "upto"]), () => {}, {}),
    (error: unknown) => error instanceof CliError && /Solana purchases pay exact/.test(error.message),
  );
});

test("npm run mcp-buy --network solana buys a tool on Solana and keeps the receipt", async () => {
  const bridge = new Client({ name: "solana-bridge-test", version: "1.0.0" });
  await bridge.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, "mcp-buy", "--url", `${service.url}/mcp`, "--network", "solana"],
      env: {
        PATH: process.env.PATH ?? "",
        DATA_DIR: service.dataDir,
        LOG_LEVEL: "silent",
        ...service.databaseEnv,
      },
      stderr: "ignore",
    }),
  );
  try {
    const dev = await devSolanaBuyer(service.dataDir);
    const before = await balance(dev.address);
    const paid = (await bridge.callTool({
      name: "macro_ecb_fx",
      arguments: { pair: "GBP" },
    })) as CallToolResult;
    const text = paid.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    assert.notEqual(paid.isError, true, text);
    assert.equal((paid.structuredContent as { pair: string }).pair, "EURGBP");
    assert.match(
      text,
      new RegExp(`Paid 0\\.005 USD in USDC on ${SOLANA.caip2} \\(transaction [1-9A-HJ-NP-Za-km-z]{64,88}\\)`),
    );
    assert.equal(before - (await balance(dev.address)), 5000n);
    const receipts = fs
      .readFileSync(path.join(service.dataDir, RECEIPTS_FILE), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, string>);
    const receipt = receipts.at(-1);
    assert.deepEqual([receipt?.network, receipt?.payer], [SOLANA.caip2, dev.address]);
  } finally {
    await bridge.close();
  }
});

/** The exact client signing with a blockhash the pretend chain issued `age` blocks ago (its own 402 echoed). */
function agedBlockhashScheme(signer: KeyPairSigner, rpcUrl: string, age: number): SchemeNetworkClient {
  const inner = new ExactSvmScheme(signer, { rpcUrl });
  return {
    scheme: "exact",
    findDefaultAsset: inner.findDefaultAsset,
    createPaymentPayload: (version: number, requirements: PaymentRequirements) => {
      const height = blockHeightAt(Date.now()) - age;
      const recentBlockhash = blockhashOf(requirements.network, height);
      return inner.createPaymentPayload(version, {
        ...requirements,
        extra: { ...requirements.extra, recentBlockhash, lastValidBlockHeight: height + 150 },
      });
    },
  };
}

test("a transaction whose blockhash expires within seconds is refused before its handler runs: 504, nothing charged", async () => {
  const buyer = await generateKeyPairSigner();
  await creditWallet(service.store, SOLANA, buyer.address, "1");
  const rpcUrl = `${service.url}/local-facilitator/solana-rpc`;
  // 140 of its 150 blocks gone: about 4 s left, less than the settle reserve.
  const client = new x402Client().register("solana:*", agedBlockhashScheme(buyer, rpcUrl, 140));
  const response = await wrapFetchWithPayment(fetch, client)(`${service.url}/v1/macro/ecb/fx?pair=CHF`);
  assert.equal(response.status, 504, await response.clone().text());
  const body = (await response.json()) as { error: string; charged: boolean };
  assert.deepEqual([body.error, body.charged], ["answer_too_slow", false]);
  assert.equal(response.headers.get("payment-response"), null);
  assert.equal(await balance(buyer.address), 1_000_000n);
  assert.equal((await settledRows(buyer.address)).length, 0);

  // A blockhash 30 blocks old (about 48 s left) is paid as usual.
  const fresh = new x402Client().register("solana:*", agedBlockhashScheme(buyer, rpcUrl, 30));
  const paid = await wrapFetchWithPayment(fetch, fresh)(`${service.url}/v1/macro/ecb/fx?pair=CHF`);
  assert.equal(paid.status, 200, await paid.clone().text());
  assert.equal(await balance(buyer.address), 1_000_000n - 5000n);
});
