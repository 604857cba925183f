// GET /v1/doctor/buy: without price, the seller's exact price; with price (at most 1 USD), a real test-buy
// with the service's own wallet when the seller asks no more than that. Every answer is kept as a report.
import type { PrivateKeyAccount } from "viem/accounts";
import { z } from "zod";
import {
  type ErrorOutcome,
  type HandlerContext,
  type Outcome,
  ok,
  product,
  type RequestInput,
} from "../../../catalog/product.ts";
import { errorOutcome } from "../../../errors.ts";
import { usdToAtomic } from "../../../x402/shared/money.ts";
import { sha256Bytes } from "../bytes-digest.ts";
import { type CheckAnswer, CheckAnswerSchema, PriceItemSchema } from "../checkup/answer.ts";
import { runCheckup } from "../checkup/probe.ts";
import type { PriceItem } from "../checkup/requirements.ts";
import { diagnose } from "../diagnosis/diagnose.ts";
import { FetchRefusedError } from "../fetcher/address-policy.ts";
import type { SafeResponse } from "../fetcher/safe-fetcher.ts";
import { newReportId, saveReport } from "../repository.ts";
import {
  checkDeps,
  type DoctorRuntime,
  liveNotice,
  refusedOutcome,
  UrlParam,
  urlRefusal,
} from "../runtime.ts";
import { BUY_NETWORK, buyOnce, type SellerReceipt } from "./buyer.ts";
import { BUY_PRICE_FORMULA, buyPriceUsd, MAX_SELLER_PRICE_USD } from "./price.ts";
import { buyerAccount } from "./wallet.ts";

const BUY_VERDICTS = [
  "price_found",
  "no_payable_option",
  "free_without_payment",
  "bought",
  "not_bought_price_too_high",
  "not_bought_no_payable_option",
  "not_bought_price_changed",
  "not_bought_seller_unavailable",
  "payment_refused",
  "seller_error_after_payment",
  "outcome_unknown",
] as const;
type BuyVerdict = (typeof BUY_VERDICTS)[number];

const SellerPrice = z.object({
  usd: z.number(),
  amount: z.string(),
  network: z.string(),
  asset: z.string(),
  payTo: z.string(),
  scheme: z.string(),
});

const Receipt = z.object({
  success: z.boolean(),
  transaction: z.string(),
  network: z.string(),
  payer: z.string().nullable(),
  amount: z.string().nullable(),
  errorReason: z.string().nullable(),
});

const BuyAnswer = z.object({
  product: z.literal("doctor.buy"),
  mode: z.enum(["lookup", "purchase"]),
  verdict: z.enum(BUY_VERDICTS),
  disclosure: z.string().describe("What the service did, with whose money, and what this call cost"),
  url: z.string(),
  sellerPrice: SellerPrice.nullable().describe("The seller's price for USDC on Base, exact scheme"),
  allOptions: z.array(PriceItemSchema).describe("Every payment option the seller offered"),
  maxPrice: z.object({ usd: z.string(), amount: z.string() }).nullable().describe("The price you allowed"),
  callPriceUsd: z.string().describe("What this call cost you"),
  seller: z
    .object({
      httpStatus: z.number().int(),
      contentType: z.string().nullable(),
      bodySha256: z.string(),
      bodyBytes: z.number().int(),
      truncated: z.boolean(),
      body: z.unknown().describe("The seller's answer: parsed JSON, or text"),
    })
    .nullable()
    .describe("The seller's answer to the paid request"),
  receipts: z.object({
    seller: Receipt.nullable().describe("The seller's PAYMENT-RESPONSE to the service's payment"),
    thisCall: z.object({
      payer: z.string().nullable(),
      network: z.string().nullable(),
      where: z.string(),
    }),
  }),
  buyer: z.string().nullable().describe("The service's wallet that paid the seller"),
  diagnosis: z.unknown().nullable().describe("Why the seller refused the service's payment, when it did"),
  checkup: CheckAnswerSchema.describe("The unpaid check made before buying"),
  reportId: z.string().regex(/^dr_[0-9a-f]{32}$/),
  checkedAt: z.iso.datetime(),
  notice: z.string().optional(),
});

type BuyBody = z.infer<typeof BuyAnswer>;

/** Atomic USDC of a price parameter, or undefined when it is not a valid amount (zod runs every check). */
function atomicOf(value: string): bigint | undefined {
  try {
    return usdToAtomic(value);
  } catch {
    return undefined;
  }
}

const PriceParam = z
  .string()
  .trim()
  .regex(/^\d{1,15}(\.\d{1,6})?$/, { error: "must be a USD amount such as 0.05 (at most 6 decimals)" })
  .refine((v) => (atomicOf(v) ?? 1n) > 0n, { error: "must be more than 0" })
  .refine((v) => (atomicOf(v) ?? 0n) <= usdToAtomic(MAX_SELLER_PRICE_USD), {
    error: `must be at most ${MAX_SELLER_PRICE_USD} USD (the test-buy limit)`,
  })
  .describe("The most you allow the service to pay the seller, in USD (USDC on Base, up to 1)");

function baseUsdcOption(price: PriceItem[]): PriceItem | undefined {
  return price.find(
    (p) =>
      p.scheme === "exact" &&
      p.network === BUY_NETWORK.caip2 &&
      p.asset.toLowerCase() === BUY_NETWORK.usdc.address.toLowerCase(),
  );
}

function sellerAnswer(response: SafeResponse): NonNullable<BuyBody["seller"]> {
  const text = response.body.toString("utf8");
  let body: unknown = text;
  if (!response.truncated) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return {
    httpStatus: response.status,
    contentType: response.headers.get("content-type"),
    bodySha256: sha256Bytes(response.body),
    bodyBytes: response.body.length,
    truncated: response.truncated,
    body,
  };
}

function walletUnavailable(message: string): ErrorOutcome {
  return errorOutcome("test_buy_unavailable", message);
}

/** What the test-buy found: the parts of the answer that depend on the seller. */
interface Findings {
  verdict: BuyVerdict;
  disclosure: string;
  seller: BuyBody["seller"];
  receipt: SellerReceipt | null;
  diagnosis: unknown;
}

const NOTHING = { seller: null, receipt: null, diagnosis: null };

function lookup(checkup: CheckAnswer, option: PriceItem | undefined, callPriceUsd: string): Findings {
  if (option) {
    return {
      ...NOTHING,
      verdict: "price_found",
      disclosure: `Lookup only, nothing was bought: the seller asks ${Number(option.amount) / 1e6} USD (${option.amount} atomic USDC on Base) to ${option.payTo}, read from its live 402. This lookup cost ${callPriceUsd} USD.`,
    };
  }
  return {
    ...NOTHING,
    verdict: checkup.verdict === "delivered" ? "free_without_payment" : "no_payable_option",
    disclosure: `Lookup only, nothing was bought: the seller offers no exact USDC payment on Base (checkup verdict ${checkup.verdict}). This lookup cost ${callPriceUsd} USD.`,
  };
}

interface PurchaseRequest {
  url: string;
  priceUsd: string;
  option: PriceItem;
  account: PrivateKeyAccount;
  callPriceUsd: string;
  reportId: string;
}

/** Buys once (the price is already known to be within the limit); a 503 when the service's own wallet fails. */
async function purchase(
  request: PurchaseRequest,
  runtime: DoctorRuntime,
  ctx: HandlerContext,
): Promise<Findings | ErrorOutcome> {
  const { url, priceUsd, option, account, callPriceUsd, reportId } = request;
  const kept = `Your payment of ${callPriceUsd} USD for this call is kept for the test and its report.`;
  const outcome = await buyOnce(url, runtime.fetcher, account, usdToAtomic(priceUsd));
  if (outcome.kind === "no_answer") {
    if (!outcome.paymentSent) {
      return {
        ...NOTHING,
        verdict: "not_bought_seller_unavailable",
        disclosure: `Nothing was bought: the seller stopped answering before the service paid (${outcome.reason}). ${kept}`,
      };
    }
    ctx.log.error({ url, reason: outcome.reason }, "test-buy: no answer after the payment was sent");
    return {
      ...NOTHING,
      verdict: "outcome_unknown",
      disclosure: `The service sent a payment of up to ${priceUsd} USD to the seller but got no answer (${outcome.reason}); whether it settled is unknown and is recorded with this report. ${kept}`,
    };
  }
  if (outcome.kind === "not_signed") {
    return {
      ...NOTHING,
      verdict: "not_bought_price_changed",
      disclosure: `Nothing was bought: when the service came to pay, the seller no longer offered USDC on Base at or below ${priceUsd} USD (${outcome.reason}). ${kept}`,
    };
  }
  const seller = sellerAnswer(outcome.response);
  const receipt = outcome.receipt;
  const status = outcome.response.status;
  const answered = { seller, receipt, diagnosis: null };
  if (!outcome.paid) {
    return {
      ...answered,
      verdict: status >= 200 && status < 300 ? "free_without_payment" : "seller_error_after_payment",
      disclosure: `Nothing was paid: the seller answered ${status} without asking for payment this time. ${kept}`,
    };
  }
  if (status >= 200 && status < 300) {
    return {
      ...answered,
      verdict: "bought",
      disclosure:
        `This service bought the URL once with its own wallet ${account.address} for ${Number(option.amount) / 1e6} USD in USDC on Base (${BUY_NETWORK.caip2}), paid through x402 to ${option.payTo}` +
        `${receipt?.transaction ? ` (transaction ${receipt.transaction})` : " (the seller sent no receipt)"}. Your payment of ${callPriceUsd} USD covers the seller's price, a 0.01 USD fee and 10 %. ` +
        `The seller's answer is reproduced as received${seller.truncated ? ` (cut at ${runtime.settings.maxBodyBytes} bytes)` : ""}; report ${reportId} keeps this answer for good, for the wallet that paid for this call only.`,
    };
  }
  if (status === 402) {
    const headers = [...outcome.response.headers.entries()].map(([k, v]) => `${k}: ${v}`).join("\n");
    const found = await diagnose({
      response: `HTTP/1.1 402\n${headers}\n\n${outcome.response.body.toString("utf8")}`,
    });
    if (found.cause === "insufficient_funds") {
      ctx.log.error({ buyer: account.address, url }, "test-buy wallet has too little USDC at the seller");
      return walletUnavailable(
        "The service's test-buy wallet could not pay the seller (insufficient funds); nothing was bought and you were not charged.",
      );
    }
    return {
      ...answered,
      verdict: "payment_refused",
      diagnosis: found,
      disclosure: `The seller refused the service's payment (${found.cause}, ${found.side ?? "unknown"} side); nothing was bought. ${kept}`,
    };
  }
  return {
    ...answered,
    verdict: "seller_error_after_payment",
    disclosure: `The seller answered ${status} to the paid request${receipt?.success ? ` yet settled the payment (transaction ${receipt.transaction}): it owes a refund` : " and did not settle it"}. ${kept}`,
  };
}

type BuyQuery = { url: string; price?: string | undefined };
type BuyInput = RequestInput<BuyQuery, unknown>;

/** What the lookup or test-buy found: the price alone, a refusal to buy, or the purchase's outcome. */
async function findingsFor(
  query: BuyQuery,
  checkup: CheckAnswer,
  option: PriceItem | undefined,
  call: { account: PrivateKeyAccount | undefined; callPriceUsd: string; reportId: string },
  runtime: DoctorRuntime,
  ctx: HandlerContext,
): Promise<Findings | ErrorOutcome> {
  const { account, callPriceUsd, reportId } = call;
  if (query.price === undefined) return lookup(checkup, option, callPriceUsd);
  if (!option) {
    return {
      ...NOTHING,
      verdict: "not_bought_no_payable_option",
      disclosure: `Nothing was bought: the seller offers no exact USDC payment on Base (checkup verdict ${checkup.verdict}). Your payment of ${callPriceUsd} USD for this call is kept for the test and its report.`,
    };
  }
  if (BigInt(option.amount) > usdToAtomic(query.price)) {
    return {
      ...NOTHING,
      verdict: "not_bought_price_too_high",
      disclosure: `Nothing was bought: the seller asks ${Number(option.amount) / 1e6} USD, more than the ${query.price} USD you allowed. Your payment of ${callPriceUsd} USD for this call is kept, as the test-buy terms say.`,
    };
  }
  if (!account) return walletUnavailable("Test-buys are not available on this server; nothing was charged.");
  return purchase(
    { url: query.url, priceUsd: query.price, option, account, callPriceUsd, reportId },
    runtime,
    ctx,
  );
}

function buyBody(
  { query, payment }: BuyInput,
  checkup: CheckAnswer,
  option: PriceItem | undefined,
  findings: Findings,
  call: { account: PrivateKeyAccount | undefined; callPriceUsd: string; reportId: string },
  ctx: HandlerContext,
): BuyBody {
  const { account, callPriceUsd, reportId } = call;
  return {
    product: "doctor.buy",
    mode: query.price === undefined ? "lookup" : "purchase",
    verdict: findings.verdict,
    disclosure: findings.disclosure,
    url: query.url,
    sellerPrice: option ? { ...option, usd: Number(option.amount) / 1e6 } : null,
    allOptions: checkup.price,
    maxPrice:
      query.price !== undefined ? { usd: query.price, amount: usdToAtomic(query.price).toString() } : null,
    callPriceUsd,
    seller: findings.seller,
    receipts: {
      seller: findings.receipt,
      thisCall: {
        payer: payment?.payer ?? null,
        network: payment?.network ?? null,
        where: `This call's own receipt is the PAYMENT-RESPONSE header of this answer; report ${reportId} stores it with the answer.`,
      },
    },
    buyer: query.price !== undefined && account ? account.address : null,
    diagnosis: findings.diagnosis,
    checkup,
    reportId,
    checkedAt: checkup.checkedAt,
    ...liveNotice(ctx),
  };
}

async function answerBuy(
  runtime: DoctorRuntime,
  account: PrivateKeyAccount | undefined,
  input: BuyInput,
  ctx: HandlerContext,
): Promise<Outcome<BuyBody>> {
  const { query, payment } = input;
  const call = { account, callPriceUsd: buyPriceUsd(query.price), reportId: newReportId() };
  try {
    const { answer: checkup } = await runCheckup(query.url, checkDeps(runtime, ctx));
    const option = baseUsdcOption(checkup.price);
    const findings = await findingsFor(query, checkup, option, call, runtime, ctx);
    if ("status" in findings) return findings;
    const body = buyBody(input, checkup, option, findings, call, ctx);
    // Stored after settlement, with this call's receipt: exactly the text the caller receives.
    const text = JSON.stringify(body);
    return ok(body, async (settlement) => {
      await saveReport(ctx.store, {
        id: call.reportId,
        sku: "doctor.buy",
        payer: settlement.payer ?? payment?.payer ?? "",
        body: text,
        network: settlement.network,
        transaction: settlement.transaction,
        amount: settlement.amount,
        ...(settlement.receipt ? { receipt: settlement.receipt } : {}),
      });
    });
  } catch (error) {
    if (error instanceof FetchRefusedError) return refusedOutcome(error);
    throw error;
  }
}

export function buyProduct(runtime: DoctorRuntime) {
  const account = buyerAccount(runtime.settings);
  return product({
    sku: "doctor.buy",
    method: "GET",
    path: "/v1/doctor/buy",
    summary: "Look up an x402 seller's exact price, or test-buy it with the service's wallet",
    description:
      "Without price: the seller's exact price (USDC on Base) from its live 402. With price (USD, at most 1): the " +
      "service buys the URL once with its own wallet through x402, only when the seller asks no more than that, " +
      "and returns the seller's answer with both receipts. When the seller asks more, nothing is bought and this " +
      "call's payment is kept. Every answer is stored as a report (dr_…) retrievable by the paying wallet.",
    status: "live",
    tags: ["doctor", "x402"],
    price: {
      dynamic: ({ query }) => buyPriceUsd(query.price),
      minUsd: "0.01",
      maxUsd: buyPriceUsd("1"),
      formula: BUY_PRICE_FORMULA,
    },
    query: z.object({ url: UrlParam, price: PriceParam.optional() }),
    answer: BuyAnswer,
    example: { url: "https://api.example.com/v1/data" },
    async check({ query }) {
      if (query.price !== undefined && !account) {
        return walletUnavailable(
          "Test-buys are not available on this server (no DOCTOR_BUYER_PRIVATE_KEY); nothing was charged. A price lookup without price still works.",
        );
      }
      return urlRefusal(query.url, runtime);
    },
    handle: (input, ctx) => answerBuy(runtime, account, input, ctx),
  });
}
