import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { serve } from "@hono/node-server";
import type { x402Facilitator } from "@x402/core/facilitator";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme as ExactEvmClient } from "@x402/evm/exact/client";
import type { Hono } from "hono";
import { encodeFunctionData, getAddress, type Hex, parseAbiItem, parseEventLogs, parseSignature } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { openTestStore } from "../../../test/test-store.ts";
import type { Store } from "../../store/store.ts";
import { NETWORKS } from "../shared/networks.ts";
import { createLocalFacilitator, creditWallet } from "./facilitator.ts";
import {
  createLedgerSigner,
  LEDGER_USDC_ABI,
  LOCAL_FACILITATOR_ADDRESS,
  MULTICALL3_ADDRESS,
} from "./ledger-signer.ts";
import { isLoopbackAddress, localFacilitatorRoutes } from "./routes.ts";

const base = NETWORKS.base;
const sepolia = NETWORKS["base-sepolia"];

let store: Store;
let facilitator: x402Facilitator;
let app: Hono;

before(async () => {
  store = await openTestStore();
  facilitator = createLocalFacilitator(store, [base, sepolia, NETWORKS.solana]);
  app = localFacilitatorRoutes(facilitator);
});

after(async () => {
  await store.close();
});

function newAccount(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

function requirementsFor(payTo: string, overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: "exact",
    network: base.caip2,
    asset: base.usdc.address,
    amount: "5000",
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin", version: "2" },
    ...overrides,
  };
}

/** What the SDK client sends: the scheme's payload wrapped as a v2 PaymentPayload. */
async function pay(account: PrivateKeyAccount, requirements: PaymentRequirements): Promise<PaymentPayload> {
  const result = await new ExactEvmClient(account).createPaymentPayload(2, requirements);
  return {
    x402Version: result.x402Version,
    resource: { url: "http://localhost:4021/v1/test", description: "test", mimeType: "application/json" },
    accepted: requirements,
    payload: result.payload,
  };
}

async function balance(address: string, network = base): Promise<bigint> {
  return store.localUsdc.balance(network.caip2, address);
}

function post(path: string, body: unknown, env?: unknown): Promise<Response> {
  const init = {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json" },
  };
  return Promise.resolve(app.request(path, init, env));
}

test("a funded buyer verifies valid and settles: the amount moves from buyer to payTo", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  assert.equal(await creditWallet(store, base, buyer.address, "1"), "1");
  const requirements = requirementsFor(payTo);
  const payload = await pay(buyer, requirements);

  const verified = await facilitator.verify(payload, requirements);
  assert.equal(verified.isValid, true, JSON.stringify(verified));
  assert.equal(verified.payer, buyer.address);
  assert.equal(await balance(buyer.address), 1_000_000n, "verify moves nothing");

  const settled = await facilitator.settle(payload, requirements);
  assert.equal(settled.success, true, JSON.stringify(settled));
  assert.match(settled.transaction, /^0x[0-9a-f]{64}$/);
  assert.equal(settled.network, base.caip2);
  assert.equal(settled.payer, buyer.address);
  assert.equal(await balance(buyer.address), 1_000_000n - 5000n);
  assert.equal(await balance(payTo), 5000n);
  assert.equal(await store.localUsdc.transferStatus(settled.transaction), "success");
});

test("the settlement receipt carries a matching ERC-20 Transfer log", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  await creditWallet(store, base, buyer.address, "0.01");
  const requirements = requirementsFor(payTo);
  const settled = await facilitator.settle(await pay(buyer, requirements), requirements);
  assert.equal(settled.success, true);
  const signer = createLedgerSigner(store, base);
  const receipt = await signer.waitForTransactionReceipt({ hash: settled.transaction as Hex });
  assert.equal(receipt.status, "success");
  const [log] = receipt.logs ?? [];
  assert.ok(log);
  assert.equal(log.address, getAddress(base.usdc.address));
  const transferEvent = parseAbiItem(
    "event Transfer(address indexed from, address indexed to, uint256 value)",
  );
  const decoded = parseEventLogs({ abi: [transferEvent], logs: [...(receipt.logs ?? [])] });
  assert.equal(decoded.length, 1);
  assert.deepEqual(decoded[0]?.args, { from: buyer.address, to: getAddress(payTo), value: 5000n });
});

test("an unfunded buyer is refused with the insufficient-balance reason", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  const requirements = requirementsFor(payTo);
  const payload = await pay(buyer, requirements);

  const verified = await facilitator.verify(payload, requirements);
  assert.equal(verified.isValid, false);
  assert.equal(verified.invalidReason, "invalid_exact_evm_insufficient_balance");

  const settled = await facilitator.settle(payload, requirements);
  assert.equal(settled.success, false);
  assert.equal(settled.errorReason, "invalid_exact_evm_insufficient_balance");
  assert.equal(settled.transaction, "");
  assert.equal(await balance(payTo), 0n);
});

test("a buyer funded by less than the amount is refused", async () => {
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "0.004999");
  const requirements = requirementsFor(newAccount().address);
  const verified = await facilitator.verify(await pay(buyer, requirements), requirements);
  assert.equal(verified.invalidReason, "invalid_exact_evm_insufficient_balance");
});

test("balances are per network: base funds do not pay on base-sepolia", async () => {
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(newAccount().address, {
    network: sepolia.caip2,
    asset: sepolia.usdc.address,
    extra: { name: "USDC", version: "2" },
  });
  const payload = await pay(buyer, requirements);
  assert.equal(
    (await facilitator.verify(payload, requirements)).invalidReason,
    "invalid_exact_evm_insufficient_balance",
  );
  await creditWallet(store, sepolia, buyer.address, "1");
  assert.equal((await facilitator.verify(payload, requirements)).isValid, true);
  assert.equal((await facilitator.settle(payload, requirements)).success, true);
  assert.equal(await balance(buyer.address, sepolia), 995_000n);
  assert.equal(await balance(buyer.address, base), 1_000_000n);
});

test("replaying a settled payload is refused as nonce already used and moves nothing", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(payTo);
  const payload = await pay(buyer, requirements);
  assert.equal((await facilitator.settle(payload, requirements)).success, true);

  const verified = await facilitator.verify(payload, requirements);
  assert.equal(verified.isValid, false);
  assert.equal(verified.invalidReason, "invalid_exact_evm_nonce_already_used");

  const replay = await facilitator.settle(payload, requirements);
  assert.equal(replay.success, false);
  assert.equal(replay.errorReason, "invalid_exact_evm_nonce_already_used");
  assert.equal(replay.transaction, "");
  assert.equal(await balance(buyer.address), 995_000n);
  assert.equal(await balance(payTo), 5000n);
});

test("concurrent settlements of one payload move the amount once", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(payTo);
  const payload = await pay(buyer, requirements);
  const results = await Promise.all([1, 2, 3].map(() => facilitator.settle(payload, requirements)));
  assert.equal(results.filter((r) => r.success).length, 1, JSON.stringify(results));
  for (const r of results.filter((r) => !r.success))
    assert.equal(r.errorReason, "invalid_exact_evm_nonce_already_used");
  assert.equal(await balance(buyer.address), 995_000n);
  assert.equal(await balance(payTo), 5000n);
});

test("a payload whose signature was tampered with is refused as an invalid signature", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(payTo);
  const payload = await pay(buyer, requirements);
  const signature = payload.payload.signature as string;
  const flipped = signature.slice(0, 10) + (signature[10] === "0" ? "1" : "0") + signature.slice(11);
  const tampered: PaymentPayload = { ...payload, payload: { ...payload.payload, signature: flipped } };

  const verified = await facilitator.verify(tampered, requirements);
  assert.equal(verified.isValid, false);
  assert.equal(verified.invalidReason, "invalid_exact_evm_signature");
  const settled = await facilitator.settle(tampered, requirements);
  assert.equal(settled.success, false);
  assert.equal(settled.errorReason, "invalid_exact_evm_signature");
  assert.equal(await balance(buyer.address), 1_000_000n);
});

test("an authorization whose amount was raised after signing is refused", async () => {
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "1");
  const signedFor = requirementsFor(newAccount().address);
  const payload = await pay(buyer, signedFor);
  const auth = payload.payload.authorization as Record<string, string>;
  const raised = requirementsFor(signedFor.payTo, { amount: "6000" });
  const forged: PaymentPayload = {
    ...payload,
    accepted: raised,
    payload: { ...payload.payload, authorization: { ...auth, value: "6000" } },
  };
  assert.equal((await facilitator.verify(forged, raised)).invalidReason, "invalid_exact_evm_signature");
});

test("an authorization for a different payTo or amount is refused", async () => {
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(newAccount().address);
  const payload = await pay(buyer, requirements);

  const otherPayTo = requirementsFor(newAccount().address);
  const wrongRecipient = await facilitator.verify(payload, otherPayTo);
  assert.equal(wrongRecipient.isValid, false);
  assert.equal(wrongRecipient.invalidReason, "invalid_exact_evm_recipient_mismatch");
  assert.equal(
    (await facilitator.settle(payload, otherPayTo)).errorReason,
    "invalid_exact_evm_recipient_mismatch",
  );

  const otherAmount = requirementsFor(requirements.payTo, { amount: "10000" });
  const wrongAmount = await facilitator.verify(payload, otherAmount);
  assert.equal(wrongAmount.isValid, false);
  assert.equal(wrongAmount.invalidReason, "invalid_exact_evm_payload_authorization_value_mismatch");
  assert.equal((await facilitator.settle(payload, otherAmount)).success, false);

  assert.equal(await balance(buyer.address), 1_000_000n);
});

test("a wrong EIP-712 domain name is diagnosed through the multicall as a token name mismatch", async () => {
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(newAccount().address, { extra: { name: "USDC", version: "2" } });
  const verified = await facilitator.verify(await pay(buyer, requirements), requirements);
  assert.equal(verified.isValid, false);
  assert.equal(verified.invalidReason, "invalid_exact_evm_token_name_mismatch");
  assert.match(verified.invalidMessage ?? "", /invalid signature/);
});

test("a wrong EIP-712 domain version is diagnosed as a token version mismatch", async () => {
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(newAccount().address, { extra: { name: "USD Coin", version: "1" } });
  const verified = await facilitator.verify(await pay(buyer, requirements), requirements);
  assert.equal(verified.invalidReason, "invalid_exact_evm_token_version_mismatch");
});

test("a payment in another asset is refused: only the network's USDC has code", async () => {
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(newAccount().address, { asset: sepolia.usdc.address });
  const verified = await facilitator.verify(await pay(buyer, requirements), requirements);
  assert.equal(verified.isValid, false);
  assert.equal(verified.invalidReason, "asset_not_deployed_contract");
});

test("the ledger simulation enforces the authorization's validity window like the contract", async () => {
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(newAccount().address);
  const payload = await pay(buyer, requirements);
  const auth = payload.payload.authorization as Record<string, string>;
  const sig = parseSignature(payload.payload.signature as Hex);
  const args = [
    auth.from,
    auth.to,
    BigInt(auth.value ?? "0"),
    BigInt(auth.validAfter ?? "0"),
    BigInt(auth.validBefore ?? "0"),
    auth.nonce,
    sig.v,
    sig.r,
    sig.s,
  ];
  const call = {
    address: base.usdc.address as Hex,
    abi: LEDGER_USDC_ABI,
    functionName: "transferWithAuthorization",
    args,
  };
  const now = Math.floor(Date.now() / 1000);
  await createLedgerSigner(store, base, { now: () => now }).readContract(call);
  await assert.rejects(
    createLedgerSigner(store, base, { now: () => now + 3600 }).readContract(call),
    /authorization is expired/,
  );
  await assert.rejects(createLedgerSigner(store, base, { now: () => 0 }).readContract(call), /not yet valid/);
  // The bytes-signature overload is understood too.
  const bytesCall = { ...call, args: [...args.slice(0, 6), payload.payload.signature] };
  await createLedgerSigner(store, base, { now: () => now }).readContract(bytesCall);
});

test("the ledger answers the SDK's diagnostic multicall with ABI-encoded results", async () => {
  const holder = newAccount().address;
  await creditWallet(store, base, holder, "2.5");
  const signer = createLedgerSigner(store, base);
  const target = base.usdc.address;
  const results = (await signer.readContract({
    address: MULTICALL3_ADDRESS,
    abi: [],
    functionName: "tryAggregate",
    args: [
      false,
      [
        {
          target,
          callData: encodeFunctionData({ abi: LEDGER_USDC_ABI, functionName: "balanceOf", args: [holder] }),
        },
        { target, callData: encodeFunctionData({ abi: LEDGER_USDC_ABI, functionName: "name" }) },
        { target: holder, callData: "0x06fdde03" },
      ],
    ],
  })) as { success: boolean; returnData: Hex }[];
  assert.equal(results.length, 3);
  assert.deepEqual(results[0], {
    success: true,
    returnData: `0x${(2_500_000).toString(16).padStart(64, "0")}`,
  });
  assert.equal(results[1]?.success, true);
  assert.equal(results[2]?.success, false);
  assert.equal(
    await signer.readContract({ address: target as Hex, abi: [], functionName: "name" }),
    "USD Coin",
  );
  assert.equal(await signer.getCode({ address: holder }), "0x");
  assert.notEqual(await signer.getCode({ address: target as Hex }), "0x");
});

test("creditWallet converts USD decimals to atomic units and rejects anything else", async () => {
  const wallet = newAccount().address;
  assert.equal(await creditWallet(store, base, wallet, "1.5"), "1.5");
  assert.equal(await creditWallet(store, base, wallet, "0.000001"), "1.500001");
  assert.equal(await creditWallet(store, base, wallet, "10"), "11.500001");
  assert.equal(await balance(wallet), 11_500_001n);
  await assert.rejects(creditWallet(store, base, wallet, "1.2345678"), /"1\.2345678"/);
  await assert.rejects(creditWallet(store, base, wallet, "abc"), /"abc"/);
  await assert.rejects(creditWallet(store, base, wallet, "-1"), /"-1"/);
  await assert.rejects(creditWallet(store, base, wallet, ""), /""/);
  await assert.rejects(creditWallet(store, base, "not-an-address", "1"), /not-an-address/);
  await assert.rejects(creditWallet(store, NETWORKS.solana, wallet, "1"), /invalid Solana address/);
  assert.equal(await balance(wallet), 11_500_001n);
});

test("getSupported lists exact, upto and batch-settlement on each EVM network given, not Solana", () => {
  const supported = facilitator.getSupported();
  assert.deepEqual(
    supported.kinds.map((k) => `${k.x402Version}/${k.scheme}/${k.network}`),
    [
      "2/exact/eip155:8453",
      "2/upto/eip155:8453",
      "2/batch-settlement/eip155:8453",
      "2/exact/eip155:84532",
      "2/upto/eip155:84532",
      "2/batch-settlement/eip155:84532",
    ],
  );
  assert.deepEqual(supported.signers, { "eip155:*": [LOCAL_FACILITATOR_ADDRESS] });
});

test("HTTP: POST /verify and /settle speak the facilitator API", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  await creditWallet(store, base, buyer.address, "1");
  const requirements = requirementsFor(payTo);
  const paymentPayload = await pay(buyer, requirements);
  const body = { x402Version: 2, paymentPayload, paymentRequirements: requirements };

  const verify = await post("/verify", body);
  assert.equal(verify.status, 200);
  assert.deepEqual(await verify.json(), { isValid: true, payer: buyer.address });

  const settle = await post("/settle", body);
  assert.equal(settle.status, 200);
  const settled = (await settle.json()) as Record<string, unknown>;
  assert.equal(settled.success, true);
  assert.match(String(settled.transaction), /^0x[0-9a-f]{64}$/);
  assert.equal(settled.network, base.caip2);
  assert.equal(settled.payer, buyer.address);
  assert.equal(await balance(payTo), 5000n);

  const replay = await post("/settle", body);
  assert.equal(replay.status, 200);
  const replayed = (await replay.json()) as Record<string, unknown>;
  assert.equal(replayed.success, false);
  assert.equal(replayed.errorReason, "invalid_exact_evm_nonce_already_used");
  assert.equal(replayed.transaction, "");

  const refused = await post("/verify", body);
  assert.equal(refused.status, 200);
  const refusedBody = (await refused.json()) as Record<string, unknown>;
  assert.equal(refusedBody.isValid, false);
  assert.equal(refusedBody.invalidReason, "invalid_exact_evm_nonce_already_used");
});

test("HTTP: GET /supported answers the facilitator's supported kinds", async () => {
  const res = await app.request("/supported");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), facilitator.getSupported());
});

test("HTTP: a malformed body is a 400 JSON refusal, never a crash", async () => {
  const buyer = newAccount();
  const requirements = requirementsFor(newAccount().address);
  const paymentPayload = await pay(buyer, requirements);
  const noAuthorization = { ...paymentPayload, payload: { signature: paymentPayload.payload.signature } };
  const badBodies: unknown[] = [
    "{not json",
    "",
    "[]",
    { x402Version: 2 },
    { x402Version: 2, paymentPayload: "x", paymentRequirements: requirements },
    {
      x402Version: 2,
      paymentPayload: { ...paymentPayload, accepted: undefined },
      paymentRequirements: requirements,
    },
    { x402Version: 2, paymentPayload: noAuthorization, paymentRequirements: requirements },
    { x402Version: 2, paymentPayload, paymentRequirements: { ...requirements, amount: undefined } },
    { x402Version: 2, paymentPayload, paymentRequirements: { ...requirements, payTo: "nobody" } },
  ];
  for (const body of badBodies) {
    const verify = await post("/verify", body);
    assert.equal(verify.status, 400, `verify ${JSON.stringify(body)}`);
    const v = (await verify.json()) as Record<string, unknown>;
    assert.equal(v.isValid, false);
    assert.match(String(v.invalidReason), /^invalid_payload$|^invalid_payment_requirements$/);

    const settle = await post("/settle", body);
    assert.equal(settle.status, 400, `settle ${JSON.stringify(body)}`);
    const s = (await settle.json()) as Record<string, unknown>;
    assert.equal(s.success, false);
    assert.match(String(s.errorReason), /^invalid_payload$|^invalid_payment_requirements$/);
    assert.equal(s.transaction, "");
    assert.equal(s.network, "");
  }
  const plain = await post("/verify", "{not json");
  assert.deepEqual(await plain.json(), {
    isValid: false,
    invalidReason: "invalid_payload",
    invalidMessage: "body must be a JSON object",
  });
});

test("HTTP: unsupported versions and networks get a reasoned 200 refusal", async () => {
  const buyer = newAccount();
  const requirements = requirementsFor(newAccount().address, { network: "eip155:1" });
  const paymentPayload = await pay(buyer, requirements);

  const verify = await post("/verify", { x402Version: 2, paymentPayload, paymentRequirements: requirements });
  assert.equal(verify.status, 200);
  assert.equal(((await verify.json()) as Record<string, unknown>).invalidReason, "invalid_network");
  const settle = await post("/settle", { x402Version: 2, paymentPayload, paymentRequirements: requirements });
  assert.equal(settle.status, 200);
  const s = (await settle.json()) as Record<string, unknown>;
  assert.equal(s.errorReason, "invalid_network");
  assert.equal(s.network, "eip155:1");

  const v1 = await post("/verify", {
    x402Version: 1,
    paymentPayload: { ...paymentPayload, x402Version: 1 },
    paymentRequirements: requirements,
  });
  assert.equal(v1.status, 200);
  assert.equal(((await v1.json()) as Record<string, unknown>).invalidReason, "invalid_x402_version");
});

test("HTTP: only loopback callers are answered", async () => {
  const remote = {
    incoming: { socket: { remoteAddress: "203.0.113.7", remotePort: 5555, remoteFamily: "IPv4" } },
  };
  const refused = await app.request("/supported", {}, remote);
  assert.equal(refused.status, 403);
  assert.equal(((await refused.json()) as Record<string, unknown>).error, "forbidden");
  assert.equal((await post("/verify", {}, remote)).status, 403);

  for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
    const local = {
      incoming: { socket: { remoteAddress: address, remotePort: 5555, remoteFamily: "IPv6" } },
    };
    assert.equal((await app.request("/supported", {}, local)).status, 200, address);
  }
  const proxied = await app.request("/supported", { headers: { "x-forwarded-for": "203.0.113.7" } });
  assert.equal(proxied.status, 403);

  assert.equal(isLoopbackAddress("127.8.9.10"), true);
  assert.equal(isLoopbackAddress("10.0.0.1"), false);
  assert.equal(isLoopbackAddress("::ffff:10.0.0.1"), false);
  assert.equal(isLoopbackAddress(undefined), false);
});

test("HTTP: the SDK's HTTPFacilitatorClient pays through the routes over a real loopback socket", async () => {
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  try {
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    const client = new HTTPFacilitatorClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 10_000 });
    const buyer = newAccount();
    const payTo = newAccount().address;
    await creditWallet(store, base, buyer.address, "0.5");
    const requirements = requirementsFor(payTo);
    const payload = await pay(buyer, requirements);

    assert.deepEqual((await client.getSupported()).kinds.length, 6);
    assert.equal((await client.verify(payload, requirements)).isValid, true);
    const settled = await client.settle(payload, requirements);
    assert.equal(settled.success, true);
    assert.equal(await balance(payTo), 5000n);
    const replay = await client.settle(payload, requirements);
    assert.equal(replay.errorReason, "invalid_exact_evm_nonce_already_used");
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
