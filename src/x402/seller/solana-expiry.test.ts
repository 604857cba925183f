import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import {
  AccountRole,
  appendTransactionMessageInstruction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import type { PaymentPayload } from "@x402/core/types";
import { loadConfig } from "../../config.ts";
import { NETWORKS } from "../shared/networks.ts";
import {
  boundedDeadline,
  landsUntil,
  lifetimeOf,
  rpcHeightReader,
  SETTLE_RESERVE_MS,
  SLOT_MS,
  solanaDeadline,
  UNHINTED_LIFE_MS,
} from "./solana-expiry.ts";

const NETWORK = NETWORKS.solana.caip2;
const MEMO = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

function randomBlockhash(): string {
  return getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(32)));
}

/** A buyer-signed transaction (fee payer left unsigned) living by `blockhash`, as the exact client makes. */
async function signedTransaction(blockhash: string): Promise<string> {
  const buyer = await generateKeyPairSigner();
  const feePayer = (await generateKeyPairSigner()).address;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash as never, lastValidBlockHeight: 0n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: MEMO as never,
          accounts: [{ address: buyer.address, role: AccountRole.READONLY_SIGNER, signer: buyer }],
          data: new TextEncoder().encode("paycall"),
        },
        m,
      ),
  );
  return getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
}

function payload(transaction: string, extra: Record<string, unknown> = {}): PaymentPayload {
  return {
    x402Version: 2,
    accepted: {
      scheme: "exact",
      network: NETWORK,
      amount: "5000",
      asset: NETWORKS.solana.usdc.address,
      payTo: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
      maxTimeoutSeconds: 300,
      extra,
    },
    payload: { transaction },
  };
}

test("the transaction's blockhash is read, with its last valid height only when it is the 402's hint", async () => {
  const blockhash = randomBlockhash();
  const transaction = await signedTransaction(blockhash);
  assert.deepEqual(
    lifetimeOf(payload(transaction, { recentBlockhash: blockhash, lastValidBlockHeight: 1234 })),
    {
      blockhash,
      lastValidBlockHeight: 1234,
    },
  );
  // The hint as the SDK also accepts it: a decimal string.
  assert.equal(
    lifetimeOf(payload(transaction, { recentBlockhash: blockhash, lastValidBlockHeight: "1234" }))
      ?.lastValidBlockHeight,
    1234,
  );
  // The buyer signed with a blockhash of its own: the hint's height says nothing of it.
  assert.deepEqual(
    lifetimeOf(payload(transaction, { recentBlockhash: randomBlockhash(), lastValidBlockHeight: 1234 })),
    { blockhash },
  );
  assert.equal(lifetimeOf(payload("not a transaction")), undefined);
});

test("the life left is the blocks left to the last valid height at the slot time; unhinted, a fixed allowance", async () => {
  const now = 1_000_000;
  const height = async () => 500;
  assert.equal(
    await landsUntil(NETWORK, { blockhash: "x", lastValidBlockHeight: 600 }, height, now),
    now + 101 * SLOT_MS,
  );
  // Already past: the end is in the past.
  assert.ok((await landsUntil(NETWORK, { blockhash: "x", lastValidBlockHeight: 400 }, height, now)) < now);
  assert.equal(await landsUntil(NETWORK, { blockhash: "x" }, height, now), now + UNHINTED_LIFE_MS);
});

test("the handler's deadline leaves the settle reserve before the transaction stops landing", () => {
  assert.equal(boundedDeadline(100_000, 50_000), 50_000 - SETTLE_RESERVE_MS);
  assert.equal(boundedDeadline(30_000, 50_000), 30_000);
});

test("solanaDeadline: bounded by a hinted blockhash, now when too little is left, unhinted when the height is unreadable", async () => {
  const config = loadConfig({ DATA_DIR: "/tmp/paycall-unused" });
  const blockhash = randomBlockhash();
  const transaction = await signedTransaction(blockhash);
  const now = 2_000_000;
  const far = now + 300_000;
  const hinted = payload(transaction, { recentBlockhash: blockhash, lastValidBlockHeight: 10_150 });
  // 150 blocks left (about 60 s): the handler gets that less the reserve.
  assert.equal(
    await solanaDeadline(config, hinted, far, async () => 10_000, now),
    now + 151 * SLOT_MS - SETTLE_RESERVE_MS,
  );
  // 20 blocks left (8 s): less than the reserve and a minimal handler: the call is refused at once.
  assert.equal(await solanaDeadline(config, hinted, far, async () => 10_130, now), now);
  // Expired: refused at once as well.
  assert.equal(await solanaDeadline(config, hinted, far, async () => 10_200, now), now);
  const unreadable = async () => {
    throw new Error("RPC down");
  };
  assert.equal(
    await solanaDeadline(config, hinted, far, unreadable, now),
    now + UNHINTED_LIFE_MS - SETTLE_RESERVE_MS,
  );
  // A deadline already shorter than the transaction's life is kept.
  assert.equal(await solanaDeadline(config, hinted, now + 20_000, async () => 10_000, now), now + 20_000);
});

test("the RPC height is read once per refresh and carried forward by the slot time in between", async () => {
  let calls = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      calls++;
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify(
          method === "getBlockHeight"
            ? { jsonrpc: "2.0", id, result: 7_000 }
            : { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const read = rpcHeightReader(url, 2_000, 60_000);
    const [a, b] = await Promise.all([read(NETWORK), read(NETWORK)]);
    assert.ok(a >= 7_000 && b >= 7_000 && a < 7_005);
    assert.ok((await read(NETWORK)) >= 7_000);
    assert.equal(calls, 1);
  } finally {
    server.close();
  }
});
