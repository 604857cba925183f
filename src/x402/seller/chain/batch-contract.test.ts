// The seller's reads of the batch-settlement contract when the chain cannot be asked: a clear reason naming the
// RPC's host only (its URL may carry an API key), and a network without an RPC refused by name.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Config } from "../../../config.ts";
import type { Store } from "../../../store/store.ts";
import { NETWORKS } from "../../shared/networks.ts";
import { createBatchContractReaders, evmBatchContractReader } from "./batch-contract.ts";
import { ChainUnreachableError } from "./verdict.ts";

test("an RPC that refuses the connection: unreachable, its host named and its key not", async () => {
  const reader = evmBatchContractReader({ rpcUrl: "http://127.0.0.1:9/v2/secret-api-key", timeoutMs: 2000 });
  await assert.rejects(reader.channels([`0x${"ab".repeat(32)}`]), (error: unknown) => {
    assert.ok(error instanceof ChainUnreachableError);
    assert.match(error.message, /^127\.0\.0\.1:9: /);
    assert.doesNotMatch(error.message, /secret-api-key/);
    return true;
  });
});

test("a network without an RPC (remote facilitator): unreachable, saying which network", async () => {
  const config = {
    facilitator: { kind: "remote" },
    networks: [NETWORKS.base],
    rpcUrls: {},
    chainRpcTimeoutMs: 1000,
  } as unknown as Config;
  const reader = createBatchContractReaders(config, {} as Store)(NETWORKS.base.caip2);
  await assert.rejects(
    reader.receiver(`0x${"12".repeat(20)}`, NETWORKS.base.usdc.address),
    (error: unknown) => {
      assert.ok(error instanceof ChainUnreachableError);
      assert.match(error.message, /no RPC is configured for base/);
      return true;
    },
  );
});
