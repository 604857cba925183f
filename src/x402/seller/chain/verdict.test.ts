// An RPC failure shown to the operator names the endpoint's host, never a key carried in its URL.
import assert from "node:assert/strict";
import { test } from "node:test";
import { evmSettlementChain } from "./evm.ts";
import { ChainUnreachableError, rpcErrorText } from "./verdict.ts";

test("rpcErrorText keeps the host and drops the path, where providers put API keys", () => {
  const url = "https://base-mainnet.example-rpc.io/v2/SECRET-API-KEY";
  const text = rpcErrorText(url, new Error(`HTTP request failed. URL: ${url} Status: 429`));
  assert.match(text, /^base-mainnet\.example-rpc\.io: /);
  assert.match(text, /429/);
  assert.ok(!text.includes("SECRET-API-KEY"));
});

test("an RPC that cannot be reached is ChainUnreachableError, whose message holds no key", async () => {
  const chain = evmSettlementChain({
    rpcUrl: "http://127.0.0.1:9/v2/SECRET-API-KEY",
    timeoutMs: 1000,
    blockTimeSec: 2,
  });
  const lookup = {
    payload: {
      x402Version: 2,
      accepted: {} as never,
      payload: {
        authorization: {
          from: "0x0000000000000000000000000000000000000001",
          nonce: `0x${"00".repeat(32)}`,
          validBefore: "9999999999",
        },
      },
    },
    requirements: { asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" } as never,
    transaction: null,
    attemptedAt: new Date(),
  };
  const error = await chain.check(lookup).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof ChainUnreachableError);
  assert.ok(!error.message.includes("SECRET-API-KEY"), error.message);
  assert.match(error.message, /^127\.0\.0\.1:9: /);
});
