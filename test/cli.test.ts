// The command line: the buyer CLI pays and prints a receipt; bad configuration is one clear line.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buy, CliError, parseBuyArgs } from "../src/buyer/buy.ts";
import { loadConfig } from "../src/config.ts";
import { devBuyerWallet } from "../src/x402/facilitator/dev-wallets.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { atomicToUsd, usdToAtomic } from "../src/x402/shared/money.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { startTestService, type TestService } from "./harness.ts";

const run = promisify(execFile);
let service: TestService;

before(async () => {
  service = await startTestService();
  await service.worker.runWarmer("ecb.fx");
});
after(() => service.stop());

function buyerConfig(env: Record<string, string> = {}) {
  return loadConfig({
    ...service.databaseEnv,
    DATA_DIR: service.dataDir,
    PUBLIC_URL: service.url,
    UPSTREAMS: "replay",
    ...env,
  });
}

test("npm run buy says nothing was charged for a 404 not cached, and when to retry", async () => {
  const lines: string[] = [];
  const code = await buy(buyerConfig(), parseBuyArgs(["/v1/nvd/cve?id=CVE-2099-0001"]), (line) =>
    lines.push(line),
  );
  assert.equal(code, 1);
  assert.equal(lines[0], "status: 404 Not Found");
  assert.match(
    lines[1] ?? "",
    /^nothing was charged \(HTTP 404: the payment was not settled\); retry after \d+ s$/,
  );
  assert.ok(!lines.some((line) => line.startsWith("price paid")));
  const body = JSON.parse(lines.slice(2).join("\n")) as { charged: boolean; error: string };
  assert.deepEqual([body.charged, body.error], [false, "not_cached"]);
});

test("npm run buy -- --scheme exact pays with a credited dev key and prints status, price, receipt and body", async () => {
  const lines: string[] = [];
  const code = await buy(
    buyerConfig(),
    parseBuyArgs(["/v1/macro/ecb/fx?pair=JPY", "--scheme", "exact"]),
    (line) => lines.push(line),
  );
  assert.equal(code, 0);
  assert.equal(lines[0], "status: 200 OK");
  assert.match(lines[1] ?? "", /^price paid: 0\.005 USD on eip155:8453 to 0x[0-9a-fA-F]{40}$/);
  const receipt = JSON.parse((lines[2] ?? "").replace(/^payment-response: /, "")) as {
    success: boolean;
    transaction: string;
  };
  assert.equal(receipt.success, true);
  assert.match(lines[3] ?? "", /^receipt: [\w-]+\.[\w-]+\.[\w-]+$/);
  const body = JSON.parse(lines.slice(4).join("\n")) as { pair: string };
  assert.equal(body.pair, "EURJPY");
  const [row] = await service.store.ledger.list();
  assert.equal(row?.transaction, receipt.transaction);
  const dev = JSON.parse(
    await import("node:fs").then((fs) => fs.readFileSync(`${service.dataDir}/dev-buyer.json`, "utf8")),
  ) as { address: string };
  assert.equal(await service.store.localUsdc.balance(NETWORKS.base.caip2, dev.address), 10_000_000n - 5000n);
});

test("npm run buy buys the chat (POST, a body), with upto: charged the tokens used; its receipt verifies", async () => {
  const dev = devBuyerWallet(service.dataDir);
  const balanceBefore = await service.store.localUsdc.balance(NETWORKS.base.caip2, dev.address);
  const lines: string[] = [];
  const code = await buy(
    buyerConfig(),
    parseBuyArgs([
      "POST",
      "/v1/llm/chat",
      '{"messages":[{"role":"user","content":"What does HTTP 402 mean?"}]}',
    ]),
    (line) => lines.push(line),
  );
  assert.equal(code, 0, lines.join("\n"));
  assert.equal(lines[0], "status: 200 OK");
  const paid =
    /^price paid: ([\d.]+) USD \(upto: authorized at most ([\d.]+) USD\) on eip155:8453 to 0x[0-9a-fA-F]{40}$/.exec(
      lines[1] ?? "",
    );
  assert.ok(paid, lines[1]);
  const settlement = JSON.parse((lines[2] ?? "").replace(/^payment-response: /, "")) as {
    amount: string;
    transaction: string;
  };
  assert.equal(atomicToUsd(BigInt(settlement.amount)), paid[1]);
  assert.ok(usdToAtomic(paid[1] as string) < usdToAtomic(paid[2] as string), "less than the maximum");
  // The recorded sample's usage (905 prompt, 41 completion tokens) at gpt-4.1-mini's default rates.
  const models = (await (await fetch(`${service.url}/v1/llm/models`)).json()) as {
    models: Array<{ id: string; inputPerMillionUsd: string; outputPerMillionUsd: string }>;
  };
  const rates = models.models.find((m) => m.id === "gpt-4.1-mini");
  const millionths =
    905n * usdToAtomic(rates?.inputPerMillionUsd ?? "") + 41n * usdToAtomic(rates?.outputPerMillionUsd ?? "");
  assert.equal(BigInt(settlement.amount), (millionths + 999_999n) / 1_000_000n + 5000n);
  const row = (await service.store.ledger.list()).find((r) => r.transaction === settlement.transaction);
  assert.deepEqual([row?.sku, row?.amount], ["llm.chat", settlement.amount]);
  assert.equal(
    balanceBefore - (await service.store.localUsdc.balance(NETWORKS.base.caip2, dev.address)),
    BigInt(settlement.amount),
  );

  // What the CLI prints as the receipt is what /v1/receipts/verify accepts, and it verifies.
  const jws = (lines[3] ?? "").replace(/^receipt: /, "");
  const verified = (await (
    await fetch(`${service.url}/v1/receipts/verify?receipt=${encodeURIComponent(jws)}`)
  ).json()) as { valid: boolean; receipt: { amount: string; usage: Record<string, number> } };
  assert.equal(verified.valid, true);
  assert.equal(verified.receipt.amount, settlement.amount);
  assert.deepEqual(verified.receipt.usage, { promptTokens: 905, completionTokens: 41, reasoningTokens: 0 });
  // So does the printed PAYMENT-RESPONSE JSON.
  const byResponse = (await (
    await fetch(
      `${service.url}/v1/receipts/verify?receipt=${encodeURIComponent(lines[2]?.replace(/^payment-response: /, "") ?? "")}`,
    )
  ).json()) as { valid: boolean };
  assert.equal(byResponse.valid, true);
});

test("npm run buy -- --scheme exact pays the chat's fixed price", async () => {
  const lines: string[] = [];
  const code = await buy(
    buyerConfig(),
    parseBuyArgs([
      "/v1/llm/chat",
      "--body",
      '{"messages":[{"role":"user","content":"Hi"}]}',
      "--scheme",
      "exact",
    ]),
    (line) => lines.push(line),
  );
  assert.equal(code, 0, lines.join("\n"));
  assert.match(lines[1] ?? "", /^price paid: [\d.]+ USD on eip155:8453 to /);
  const body = JSON.parse(lines.slice(4).join("\n")) as { x402: { scheme: string; priceUsd: string } };
  assert.equal(body.x402.scheme, "exact");
  assert.equal(lines[1]?.split(" ")[2], body.x402.priceUsd);
});

test("npm run buy pays with batch-settlement: one deposit, then vouchers; --refund returns the rest", async () => {
  const key = generatePrivateKey();
  const buyer = privateKeyToAccount(key).address;
  await creditWallet(service.store, NETWORKS.base, buyer, "1");
  const config = buyerConfig({ BUYER_PRIVATE_KEY: key });
  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer);
  const buyOnce = async (argv: string[]) => {
    const lines: string[] = [];
    const code = await buy(config, parseBuyArgs(argv), (line) => lines.push(line));
    assert.equal(code, 0, lines.join("\n"));
    return lines;
  };

  const first = await buyOnce(["/v1/macro/ecb/fx?pair=JPY", "--deposit", "0.02"]);
  assert.equal(first[0], "status: 200 OK");
  assert.match(first[1] ?? "", /^price paid: 0\.005 USD \(batch-settlement voucher\) on eip155:8453 to 0x/);
  assert.match(first[2] ?? "", /^deposited 0\.02 USD into the channel \(transaction 0x[0-9a-f]{64}\)$/);
  assert.match(first[3] ?? "", /^channel 0x[0-9a-f]{64}: 0\.015 of 0\.02 USD left/);
  assert.equal(await balance(), 1_000_000n - 20_000n);

  // A second run (a new process, the channel read back from DATA_DIR) pays a voucher: nothing moves on chain.
  const second = await buyOnce(["/v1/macro/ecb/fx?pair=USD"]);
  assert.match(second[1] ?? "", /^price paid: 0\.005 USD \(batch-settlement voucher\)/);
  assert.match(second[2] ?? "", /^channel 0x[0-9a-f]{64}: 0\.01 of 0\.02 USD left/);
  assert.equal(await balance(), 1_000_000n - 20_000n);
  assert.ok(fs.readdirSync(path.join(service.dataDir, "buyer-channels", "client")).length > 0);

  const stranger = buyerConfig({ BUYER_PRIVATE_KEY: generatePrivateKey() });
  await assert.rejects(
    buy(stranger, parseBuyArgs(["--refund", "/v1/macro/ecb/fx?pair=JPY"]), () => {}),
    (error: unknown) =>
      error instanceof CliError && /^refund failed: channel has no remaining balance/.test(error.message),
  );

  const refund = await buyOnce(["--refund", "/v1/macro/ecb/fx?pair=JPY"]);
  assert.match(
    refund.at(-1) ?? "",
    /^refunded: 0\.01 USD to 0x[0-9a-fA-F]{40} on base \(transaction 0x[0-9a-f]{64}\)$/,
  );
  assert.equal(await balance(), 1_000_000n - 10_000n);
});

test("--max below the price refuses to pay", async () => {
  await assert.rejects(
    buy(buyerConfig(), parseBuyArgs(["/v1/macro/ecb/fx?pair=JPY", "--max", "0.001"]), () => {}),
    (error: unknown) => error instanceof CliError && /above --max 0\.001/.test(error.message),
  );
});

test("an unreachable server is one clear line", async () => {
  const config = loadConfig({
    ...service.databaseEnv,
    DATA_DIR: service.dataDir,
    PUBLIC_URL: "http://127.0.0.1:9",
  });
  await assert.rejects(
    buy(config, parseBuyArgs(["/v1/macro/ecb/fx?pair=USD"]), () => {}),
    /cannot reach/,
  );
});

test("bad CLI arguments are refused with a usage line", () => {
  assert.throws(() => parseBuyArgs([]), /usage/);
  assert.throws(() => parseBuyArgs(["/x", "--max", "lots"]), /--max/);
  assert.throws(() => parseBuyArgs(["/x", "--network", "polygon"]), /--network/);
  assert.throws(() => parseBuyArgs(["POST", "/x", "{not json"]), /must be JSON/);
  assert.throws(() => parseBuyArgs(["GET", "/x", "{}"]), /GET request takes no body/);
  assert.throws(() => parseBuyArgs(["/x", "--scheme", "stream"]), /--scheme/);
  assert.deepEqual(parseBuyArgs(["/x", "{}"]), { method: "POST", target: "/x", body: "{}" });
});

test("batch-settlement options: --deposit within --max, --refund alone", () => {
  assert.deepEqual(parseBuyArgs(["/x", "--deposit", "0.05"]), {
    method: "GET",
    target: "/x",
    depositUsd: "0.05",
  });
  assert.deepEqual(parseBuyArgs(["--refund", "/x"]), { method: "GET", target: "/x", refund: true });
  assert.throws(() => parseBuyArgs(["/x", "--deposit", "2"]), /--deposit 2 is above --max 1 USD/);
  assert.throws(() => parseBuyArgs(["/x", "--deposit", "0"]), /--deposit must be above 0/);
  assert.throws(
    () => parseBuyArgs(["/x", "--deposit", "0.1", "--scheme", "exact"]),
    /--scheme exact makes none/,
  );
  assert.throws(() => parseBuyArgs(["--refund", "/x", "--scheme", "upto"]), /--refund takes a path/);
  assert.throws(() => parseBuyArgs(["--refund", "/x", "--network", "solana"]), /EVM networks, not solana/);
  assert.equal(parseBuyArgs(["/x", "--scheme", "batch-settlement"]).scheme, "batch-settlement");
});

test("a bad variable stops the process with one line naming it", async () => {
  const result = await run(process.execPath, ["src/main.ts", "serve"], {
    env: { ...process.env, PORT: "http" },
  }).catch((e) => e);
  assert.equal(result.code, 1);
  assert.equal(result.stderr.trim().split("\n").length, 1);
  assert.match(result.stderr, /^paycall: PORT: must be an integer/);
});

test("npm run faucet credits the local ledger", async () => {
  const address = "0x2222222222222222222222222222222222222222";
  const result = await run(process.execPath, ["src/main.ts", "faucet", address, "2.5"], {
    env: { ...process.env, ...service.databaseEnv, DATA_DIR: service.dataDir, LOG_LEVEL: "silent" },
  });
  assert.match(result.stdout, /balance 2\.5 USD/);
  assert.equal(await service.store.localUsdc.balance(NETWORKS.base.caip2, address), 2_500_000n);
  const bad = await run(process.execPath, ["src/main.ts", "faucet", address, "lots"], {
    env: { ...process.env, ...service.databaseEnv, DATA_DIR: service.dataDir },
  }).catch((e) => e);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^paycall: .*lots/);
});

test("npm run ingest imports a curated file once, and refuses a bad one naming line and field", async () => {
  const env = { ...process.env, ...service.databaseEnv, DATA_DIR: service.dataDir, LOG_LEVEL: "silent" };
  const areas = "src/products/mountain/sample-data/areas.csv";
  const first = await run(process.execPath, ["src/main.ts", "ingest", "areas", areas], { env });
  assert.match(first.stdout, /areas rows imported \(\d+ new, 0 updated\)/);
  const again = await run(process.execPath, ["src/main.ts", "ingest", "areas", areas], { env });
  assert.match(again.stdout, /\(0 new, \d+ updated\)/);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-ingest-"));
  const bad = path.join(dir, "areas.csv");
  const lines = fs.readFileSync(areas, "utf8").trim().split("\n");
  fs.writeFileSync(bad, `${lines[0]}\n${lines[1]?.replace(/^[^,]+/, "Not A Slug")}\n`);
  const refused = await run(process.execPath, ["src/main.ts", "ingest", "areas", bad], { env }).catch(
    (e) => e,
  );
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /areas\.csv:2: id: /);
});
