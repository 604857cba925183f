// How long a batch-settlement claim on the local facilitator holds the store's USDC-ledger lock: every node's
// local settlements (exact, upto, deposits) wait for that lock, on PostgreSQL across nodes. Two contenders, in
// alternating rounds (rounds.ts), claiming BENCH_CLAIM_ROWS channels on a SQLite file:
//   claim        the pretend contract's claimWithSignature as it runs: every signature (the ClaimBatch and each
//                row's voucher) checked first, then the state changed in one short store transaction
//   sigs-locked  the same claim with its signature checks held inside a locked store transaction first, as a
//                contract that checks them while it changes state would hold the lock (the design avoided)
// The figure: milliseconds the lock is held (the time inside LocalBatchContractRepository.transact), and the
// claim's whole duration. Knobs: BENCH_ROUNDS (5), BENCH_CLAIM_ROWS (100).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  BATCH_SETTLEMENT_ADDRESS,
  BATCH_SETTLEMENT_DOMAIN,
  type ChannelConfig,
  claimBatchTypes,
  voucherTypes,
} from "@x402/evm";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import { type Hex, recoverTypedDataAddress } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { LocalBatchContractRepository } from "../src/store/local-batch-contract.ts";
import { openStore, type Store } from "../src/store/store.ts";
import { executeBatchCall } from "../src/x402/facilitator/batch-contract.ts";
import { batchChain } from "../src/x402/facilitator/batch-ledger.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { knob } from "./common.ts";
import { inRounds, perRoundRatios, ratioLine, spreadText } from "./rounds.ts";

const ROUNDS = knob("BENCH_ROUNDS", 5, 1, 50);
const ROWS = knob("BENCH_CLAIM_ROWS", 100, 1, 100);
const base = NETWORKS.base;
const DEPOSIT = 1_000_000n;

interface Channel {
  config: ChannelConfig;
  id: Hex;
  buyer: PrivateKeyAccount;
}

const domain = {
  ...BATCH_SETTLEMENT_DOMAIN,
  chainId: base.chainId,
  verifyingContract: BATCH_SETTLEMENT_ADDRESS,
};

/** ROWS channels to one receiver, each with a deposit put straight into the pretend contract's state. */
async function channels(store: Store, authorizer: PrivateKeyAccount): Promise<Channel[]> {
  const receiver = privateKeyToAccount(generatePrivateKey()).address;
  const chain = batchChain(store, base);
  const made: Channel[] = [];
  for (let i = 0; i < ROWS; i++) {
    const buyer = privateKeyToAccount(generatePrivateKey());
    const config: ChannelConfig = {
      payer: buyer.address,
      payerAuthorizer: buyer.address,
      receiver,
      receiverAuthorizer: authorizer.address,
      token: base.usdc.address as `0x${string}`,
      withdrawDelay: 900,
      salt: `0x${"00".repeat(32)}`,
    };
    const id = computeChannelId(config, base.caip2);
    await chain.contract.putChannel(base.caip2, id, {
      payer: buyer.address,
      receiver,
      token: config.token,
      balance: DEPOSIT,
      totalClaimed: 0n,
      refundNonce: 0n,
    });
    made.push({ config, id, buyer });
  }
  await store.localUsdc.credit(base.caip2, BATCH_SETTLEMENT_ADDRESS, DEPOSIT * BigInt(ROWS));
  return made;
}

/** The claim's signature checks, as the contract makes them. */
async function recoverAll(
  list: Channel[],
  rows: { voucher: { maxClaimableAmount: bigint }; signature: Hex }[],
  signature: Hex,
  entries: { channelId: Hex; maxClaimableAmount: bigint; totalClaimed: bigint }[],
): Promise<void> {
  await recoverTypedDataAddress({
    domain,
    types: claimBatchTypes,
    primaryType: "ClaimBatch",
    message: { claims: entries },
    signature,
  });
  for (const [i, row] of rows.entries())
    await recoverTypedDataAddress({
      domain,
      types: voucherTypes,
      primaryType: "Voucher",
      message: { channelId: (list[i] as Channel).id, maxClaimableAmount: row.voucher.maxClaimableAmount },
      signature: row.signature,
    });
}

/** Round `round`'s claim: every channel's voucher for `round` micro-USD more, signed by buyers and authorizer. */
async function claimArgs(list: Channel[], authorizer: PrivateKeyAccount, round: number) {
  const amount = BigInt(round) * 1000n;
  const rows = await Promise.all(
    list.map(async (c) => ({
      voucher: { channel: c.config, maxClaimableAmount: amount },
      signature: await c.buyer.signTypedData({
        domain,
        types: voucherTypes,
        primaryType: "Voucher",
        message: { channelId: c.id, maxClaimableAmount: amount },
      }),
      totalClaimed: amount,
    })),
  );
  const entries = list.map((c) => ({ channelId: c.id, maxClaimableAmount: amount, totalClaimed: amount }));
  const signature = await authorizer.signTypedData({
    domain,
    types: claimBatchTypes,
    primaryType: "ClaimBatch",
    message: { claims: entries },
  });
  return { rows, signature, entries };
}

let heldMs = 0;
const transact = LocalBatchContractRepository.prototype.transact;
LocalBatchContractRepository.prototype.transact = async function timed<T>(
  this: LocalBatchContractRepository,
  work: (contract: LocalBatchContractRepository) => Promise<T>,
): Promise<T> {
  return transact.call(this, async (contract) => {
    const started = performance.now();
    try {
      return (await work(contract)) as T;
    } finally {
      heldMs += performance.now() - started;
    }
  }) as Promise<T>;
};

/** How long `work` held the ledger's lock, and how long it took. */
async function held(work: () => Promise<unknown>): Promise<{ held: number; ms: number }> {
  heldMs = 0;
  const started = performance.now();
  await work();
  return { held: heldMs, ms: performance.now() - started };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-bench-claim-"));
  const store = await openStore({ kind: "sqlite", file: path.join(dir, "paycall.sqlite") });
  try {
    const authorizer = privateKeyToAccount(generatePrivateKey());
    const list = await channels(store, authorizer);
    const chain = batchChain(store, base);
    const results = await inRounds(
      [
        {
          name: "claim",
          measure: async (round) => {
            const { rows, signature } = await claimArgs(list, authorizer, round);
            return held(() => executeBatchCall(chain, "claimWithSignature", [rows, signature]));
          },
        },
        {
          name: "sigs-locked",
          measure: async (round) => {
            const { rows, signature, entries } = await claimArgs(list, authorizer, round);
            return held(async () => {
              await chain.contract.transact(() => recoverAll(list, rows, signature, entries));
              await executeBatchCall(chain, "claimWithSignature", [rows, signature]);
            });
          },
        },
      ],
      ROUNDS,
      (round, r) =>
        console.log(
          `round ${round}: ${[...r].map(([n, x]) => `${n} lock held ${x.held.toFixed(1)} ms of ${x.ms.toFixed(0)} ms`).join("; ")}`,
        ),
    );
    if (ROUNDS < 3)
      console.log(`(${ROUNDS} round${ROUNDS === 1 ? "" : "s"}: a check that the bench works, not a figure)`);
    for (const name of ["claim", "sigs-locked"]) {
      const r = results.get(name) ?? [];
      console.log(
        `${name} (${ROWS} rows): lock held ${spreadText(
          r.map((x) => x.held),
          1,
        )} ms; claim took ${spreadText(r.map((x) => x.ms))} ms`,
      );
    }
    console.log(
      ratioLine(
        "lock held, claim / sigs-locked",
        perRoundRatios(results, "claim", "sigs-locked", (x) => x.held),
        {
          atMost: 0.2,
        },
      ),
    );
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
