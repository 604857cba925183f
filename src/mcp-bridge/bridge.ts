// `npm run mcp-buy`: a local stdio MCP server for MCP clients that cannot pay (Claude Desktop, Cursor, …). It
// offers paycall's tools as paycall lists them and, when a call needs payment, pays it with the buyer wallet
// (BUYER_PRIVATE_KEY, else DATA_DIR/dev-buyer.json; with --network solana BUYER_SOLANA_KEY, else
// DATA_DIR/dev-solana-buyer.json) within the caps of options.ts, asks the user to confirm
// above a threshold (MCP elicitation), and keeps a receipt of every payment settled. On EVM it pays with a
// batch-settlement voucher where offered (the channel kept in DATA_DIR like `npm run buy`'s), else exact.
// stdout carries the MCP messages only: everything else goes to stderr.
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { BATCH_SETTLEMENT, batchScheme } from "../buyer/batch-buyer.ts";
import { solanaBuyerSigner } from "../buyer/solana-key.ts";
import type { Config } from "../config.ts";
import { devBuyerWallet } from "../x402/facilitator/dev-wallets.ts";
import { atomicToUsd } from "../x402/shared/money.ts";
import { NETWORKS } from "../x402/shared/networks.ts";
import { Budget } from "./budget.ts";
import type { BridgeOptions } from "./options.ts";

const log = (line: string) => process.stderr.write(`paycall mcp-buy: ${line}\n`);

/**
 * The payment requirements in a tool result, by the x402 MCP transport's client rule
 * (specs/transports-v2/mcp.md): structuredContent with x402Version and accepts, else content[0].text as JSON.
 */
function paymentRequiredOf(result: CallToolResult): PaymentRequired | undefined {
  if (!result.isError) return undefined;
  const isRequired = (v: unknown): v is PaymentRequired =>
    typeof v === "object" &&
    v !== null &&
    "x402Version" in v &&
    Array.isArray((v as { accepts?: unknown }).accepts);
  if (isRequired(result.structuredContent)) return result.structuredContent;
  const first = result.content[0];
  if (first?.type !== "text") return undefined;
  try {
    const parsed: unknown = JSON.parse(first.text);
    return isRequired(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function refusal(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

async function listAll(remote: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await remote.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** The buyer wallet registered with `payer`; crediting the development buyer runs in the background. */
async function buyerWallet(
  config: Config,
  options: BridgeOptions,
  payer: x402Client,
): Promise<{ address: string; ready: Promise<unknown> }> {
  const solana = options.network?.kind === "svm" ? options.network : undefined;
  // Started now, awaited when needed, so the MCP client's initialize is answered at once: crediting the
  // development buyer on the local facilitator (npm run buy's key logic) opens the service's store.
  let address: string;
  let ready: Promise<unknown>;
  if (solana) {
    const { signer } = await solanaBuyerSigner(config.dataDir);
    address = signer.address;
    ready = import("../buyer/solana-buyer.ts").then(async ({ solanaPayer }) =>
      payer.register(solana.caip2, (await solanaPayer(config, solana, options.url)).scheme),
    );
  } else {
    const account = privateKeyToAccount(config.buyerPrivateKey ?? devBuyerWallet(config.dataDir).privateKey);
    address = account.address;
    // A channel's deposit is held, not spent: at most the session's cap, as the seller suggests within it.
    const batch = { serverUrl: options.url, policy: { max: options.maxSession } };
    for (const network of Object.values(NETWORKS).filter((n) => n.kind === "evm")) {
      payer.register(network.caip2, new ExactEvmScheme(account));
      payer.register(network.caip2, batchScheme(config, account, network, batch));
    }
    ready = import("../buyer/buy.ts").then(({ buyerKey }) => buyerKey(config));
  }
  ready.catch((error: Error) => log(`the buyer wallet is not ready: ${error.message}`));
  return { address, ready };
}

/** paycall's MCP endpoint as a client, connected in the background; its tools listed once. */
function remoteService(url: string) {
  const remote = new Client({ name: "paycall-mcp-buy", version: "1.0.0" });
  const ready = remote.connect(new StreamableHTTPClientTransport(new URL(url))).catch((error) => {
    throw new McpError(
      ErrorCode.InternalError,
      `cannot reach paycall's MCP endpoint ${url}: ${(error as Error).message}`,
    );
  });
  ready.catch((error: Error) => log(error.message));
  let tools: Promise<Tool[]> | undefined;
  const listTools = () => {
    tools ??= ready.then(() => listAll(remote));
    tools.catch(() => {
      tools = undefined;
    });
    return tools;
  };
  return { remote, ready, listTools };
}

interface Bridge {
  options: BridgeOptions;
  server: Server;
  payer: x402Client;
  budget: Budget;
  walletReady: Promise<unknown>;
}

/**
 * The option this bridge signs, on the configured network (any EVM network by default): a batch-settlement
 * voucher where offered (EVM), else exact.
 */
function chosenOption(required: PaymentRequired, options: BridgeOptions): PaymentRequirements | undefined {
  const onNetwork = required.accepts.filter((r: PaymentRequirements) =>
    options.network ? r.network === options.network.caip2 : r.network.startsWith("eip155:"),
  );
  return onNetwork.find((r) => r.scheme === BATCH_SETTLEMENT) ?? onNetwork.find((r) => r.scheme === "exact");
}

/** Undefined when the payment may go ahead (within the caps, confirmed where asked), else the refusal. */
async function approve(bridge: Bridge, name: string, amount: bigint): Promise<CallToolResult | undefined> {
  const decision = bridge.budget.decide(amount);
  if ("refuse" in decision) return refusal(decision.refuse);
  if (!("confirm" in decision)) return undefined;
  if (!bridge.server.getClientCapabilities()?.elicitation)
    return refusal(bridge.budget.cannotConfirm(amount));
  const answer = await bridge.server.elicitInput({
    message: `paycall ${name}: ${decision.confirm}`,
    requestedSchema: {
      type: "object",
      properties: { pay: { type: "boolean", title: `Pay ${atomicToUsd(amount)} USD` } },
      required: ["pay"],
    },
  });
  if (answer.action !== "accept" || answer.content?.pay !== true)
    return refusal(`Not paid: you declined the ${atomicToUsd(amount)} USD payment for ${name}.`);
  return undefined;
}

/** How the payment went on chain: a transfer, a voucher (claimed later, in a batch), or a deposit with one. */
function howPaid(chosen: PaymentRequirements, settlement: SettleResponse): string {
  if (chosen.scheme !== BATCH_SETTLEMENT) return `transaction ${settlement.transaction}`;
  if (!settlement.transaction)
    return "a batch-settlement voucher: no transaction, the seller claims vouchers in batches";
  const deposit = atomicToUsd(BigInt(settlement.amount || "0"));
  return `a batch-settlement voucher, with a deposit of ${deposit} USD into the channel (transaction ${settlement.transaction})`;
}

/** The paid answer with the payment's line, its receipt kept (settled); or the refusal, nothing charged. */
function paidResult(
  bridge: Bridge,
  call: { name: string; args: Record<string, unknown>; chosen: PaymentRequirements },
  paid: CallToolResult,
): { result: CallToolResult; settled: boolean } {
  const { name, args, chosen } = call;
  const settlement = paid._meta?.["x402/payment-response"] as SettleResponse | undefined;
  if (paid.isError || settlement?.success !== true) {
    const reason = paymentRequiredOf(paid)?.error ?? settlement?.errorReason;
    log(`${name}: not settled${reason ? ` (${reason})` : ""}; nothing charged`);
    if (!reason) return { result: paid, settled: false };
    const refused = `Not paid: the payment was refused (${reason}); nothing was charged.`;
    return {
      result: { ...paid, content: [{ type: "text", text: refused }, ...paid.content] },
      settled: false,
    };
  }
  const receipt = {
    time: new Date().toISOString(),
    tool: name,
    argumentsSha256: createHash("sha256").update(JSON.stringify(args)).digest("hex"),
    amount: chosen.amount,
    priceUsd: atomicToUsd(BigInt(chosen.amount)),
    network: chosen.network,
    asset: chosen.asset,
    payTo: chosen.payTo,
    scheme: chosen.scheme,
    ...(settlement.payer ? { payer: settlement.payer } : {}),
    transaction: settlement.transaction ?? "",
  };
  bridge.budget.keep(receipt);
  const how = howPaid(chosen, settlement);
  log(`${name}: paid ${receipt.priceUsd} USD, ${how}`);
  const { budget, options } = bridge;
  const line = `Paid ${receipt.priceUsd} USD in USDC on ${receipt.network} (${how}); ${atomicToUsd(budget.spent)} of ${atomicToUsd(options.maxSession)} USD spent this session. Receipt kept in ${options.receiptsFile}.`;
  return { result: { ...paid, content: [...paid.content, { type: "text", text: line }] }, settled: true };
}

/**
 * The call paid with `chosen`, the answer told to the payer's scheme (a batch-settlement channel counts what
 * was charged); a corrective 402 (the channel's state was behind) is recovered from once and paid again.
 */
async function paidCall(
  bridge: Bridge,
  call: (meta?: Record<string, unknown>) => Promise<CallToolResult>,
  required: PaymentRequired,
  chosen: PaymentRequirements,
): Promise<CallToolResult> {
  for (let attempt = 1; ; attempt += 1) {
    const payment = await bridge.payer.createPaymentPayload({ ...required, accepts: [chosen] });
    const paid = await call({ "x402/payment": payment });
    const settleResponse = paid._meta?.["x402/payment-response"] as SettleResponse | undefined;
    const paymentRequired = settleResponse ? undefined : paymentRequiredOf(paid);
    const recovery = await bridge.payer.handlePaymentResponse({
      paymentPayload: payment,
      requirements: chosen,
      ...(settleResponse ? { settleResponse } : {}),
      ...(paymentRequired ? { paymentRequired } : {}),
    });
    if (recovery?.recovered !== true || attempt >= 2) return paid;
  }
}

/** One tools/call: asked unpaid, and paid when the answer is a payment request this bridge may pay. */
async function callTool(
  bridge: Bridge,
  remote: ReturnType<typeof remoteService>,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const call = (meta?: Record<string, unknown>) =>
    remote.remote.callTool({
      name,
      arguments: args,
      ...(meta ? { _meta: meta } : {}),
    }) as Promise<CallToolResult>;
  await remote.ready;
  const unpaid = await call();
  const required = paymentRequiredOf(unpaid);
  if (!required) return unpaid;
  const chosen = chosenOption(required, bridge.options);
  if (!chosen)
    return refusal(
      `Not paid: no payment option this bridge can sign (${bridge.options.network?.name ?? "EVM"}, exact) for ${name}.`,
    );
  const amount = BigInt(chosen.amount);
  const refused = await approve(bridge, name, amount);
  if (refused) return refused;
  bridge.budget.reserve(amount);
  let settled = false;
  try {
    await bridge.walletReady;
    const answer = paidResult(bridge, { name, args, chosen }, await paidCall(bridge, call, required, chosen));
    settled = answer.settled;
    return answer.result;
  } finally {
    if (!settled) bridge.budget.release(amount);
  }
}

export async function runBridge(config: Config, options: BridgeOptions): Promise<void> {
  const payer = new x402Client();
  payer.setSpendControls({ maxAmountPerPayment: `$${atomicToUsd(options.maxPerCall)}` });
  const budget = new Budget(options);
  const wallet = await buyerWallet(config, options, payer);
  const remote = remoteService(options.url);
  const server = new Server(
    { name: "paycall-mcp-buy", version: "1.0.0" },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: `paycall's data tools. Paid tools are bought by this bridge with the buyer wallet ${wallet.address} (USDC, x402): up to ${atomicToUsd(options.maxPerCall)} USD a call and ${atomicToUsd(options.maxSession)} USD a session; above ${atomicToUsd(options.confirmAbove)} USD the user is asked first. Nothing is charged for an error.`,
    },
  );
  const bridge: Bridge = { options, server, payer, budget, walletReady: wallet.ready };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await remote.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(bridge, remote, request.params.name, request.params.arguments ?? {}),
  );

  const transport = new StdioServerTransport();
  await server.connect(transport);
  // The MCP client closing its end of stdin ends the bridge.
  process.stdin.once("end", () => {
    void Promise.allSettled([server.close(), remote.remote.close()]).then(() => process.exit(0));
  });
  log(`serving paycall's tools from ${options.url} on stdio; buyer ${wallet.address}`);
}
