// Validates every field of a seller's payment request against x402 v2 and the networks' real USDC
// contracts and EIP-712 domains, and reads the prices it offers.
import { isAddress } from "viem";
import { isObject, type JsonObject } from "../../../json.ts";
import { NETWORKS, type NetworkInfo, networkByCaip2 } from "../../../x402/shared/networks.ts";
import { type Problem, problem } from "./problems.ts";

export interface PriceItem {
  /** USD value when the asset is the network's USDC (6 decimals); null for other tokens. */
  usd: number | null;
  network: string;
  asset: string;
  scheme: string;
  amount: string;
  payTo: string;
}

export interface RequirementsReport {
  x402Version: number | null;
  problems: Problem[];
  price: PriceItem[];
  payTo: string[];
}

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const LEGACY_NAMES: Record<string, string> = {
  base: NETWORKS.base.caip2,
  "base-sepolia": NETWORKS["base-sepolia"].caip2,
  solana: NETWORKS.solana.caip2,
  "solana-devnet": NETWORKS["solana-devnet"].caip2,
};
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const ZERO_ADDRESS = /^0x0{40}$/i;
const EVM_HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Above this a USDC price per call is more likely mis-scaled than meant. */
const SUSPICIOUS_USD = 1000;

const KNOWN = Object.values(NETWORKS);

function sameAddress(a: string, b: string, network: NetworkInfo): boolean {
  return network.kind === "evm" ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function checkNetwork(value: unknown, where: string, problems: Problem[]): string | undefined {
  if (typeof value !== "string" || value === "") {
    problems.push(problem("network_invalid", "error", "network is missing", where));
    return undefined;
  }
  if (!CAIP2.test(value)) {
    const caip2 = LEGACY_NAMES[value.toLowerCase()];
    if (caip2 || /^[a-z][a-z0-9-]*$/i.test(value)) {
      problems.push(
        problem(
          "legacy_network_name",
          "error",
          `network "${value}" is a v1 name; v2 clients expect CAIP-2${caip2 ? ` (${caip2})` : ""}`,
          where,
        ),
      );
    } else {
      problems.push(
        problem("network_invalid", "error", `network "${value}" is not a CAIP-2 identifier`, where),
      );
    }
    return undefined;
  }
  return value;
}

function checkAmount(entry: JsonObject, where: string, problems: Problem[]): string | undefined {
  const amount = entry.amount;
  if (amount === undefined && "maxAmountRequired" in entry) {
    problems.push(
      problem(
        "challenge_v1_only",
        "error",
        "the option uses v1's maxAmountRequired instead of amount",
        `${where}.amount`,
      ),
    );
    return undefined;
  }
  if (typeof amount === "number") {
    problems.push(
      problem(
        "amount_not_atomic",
        "error",
        `amount is the JSON number ${amount}; it must be a string of digits`,
        `${where}.amount`,
      ),
    );
    return undefined;
  }
  if (typeof amount !== "string" || !/^\d+$/.test(amount)) {
    problems.push(
      problem(
        "amount_not_atomic",
        "error",
        `amount ${JSON.stringify(amount ?? null)} is not an atomic integer string`,
        `${where}.amount`,
      ),
    );
    return undefined;
  }
  if (/^0+$/.test(amount)) {
    problems.push(problem("amount_suspicious", "warning", "amount is zero", `${where}.amount`));
  }
  return amount;
}

function checkEvmOption(
  entry: JsonObject,
  network: NetworkInfo | undefined,
  asset: string,
  where: string,
  problems: Problem[],
): void {
  const payTo = entry.payTo;
  if (typeof payTo !== "string" || !EVM_HEX_ADDRESS.test(payTo)) {
    problems.push(
      problem(
        "pay_to_invalid",
        "error",
        `payTo ${JSON.stringify(payTo ?? null)} is not a 20-byte hex address`,
        `${where}.payTo`,
      ),
    );
  } else if (ZERO_ADDRESS.test(payTo)) {
    problems.push(
      problem(
        "pay_to_invalid",
        "error",
        "payTo is the zero address: payments would be burnt",
        `${where}.payTo`,
      ),
    );
  } else if (payTo.toLowerCase() === asset.toLowerCase()) {
    problems.push(problem("pay_to_invalid", "error", "payTo is the token contract itself", `${where}.payTo`));
  } else if (!isAddress(payTo, { strict: true })) {
    problems.push(
      problem(
        "pay_to_invalid",
        "warning",
        "payTo has mixed case but an invalid EIP-55 checksum",
        `${where}.payTo`,
      ),
    );
  }
  const extra = isObject(entry.extra) ? entry.extra : undefined;
  const name = extra?.name;
  const version = extra?.version;
  if (typeof name !== "string" || typeof version !== "string" || name === "" || version === "") {
    problems.push(
      problem(
        "eip712_domain_missing",
        "error",
        "extra.name and extra.version (the token's EIP-712 domain) are missing",
        `${where}.extra`,
      ),
    );
    return;
  }
  const domain = network?.usdc.eip712;
  if (domain && network && sameAddress(asset, network.usdc.address, network)) {
    if (name !== domain.name || version !== domain.version) {
      problems.push(
        problem(
          "eip712_domain_mismatch",
          "error",
          `extra says "${name}" version "${version}"; the USDC contract on ${network.caip2} signs as "${domain.name}" version "${domain.version}"`,
          `${where}.extra`,
        ),
      );
    }
  }
}

function checkSolanaOption(entry: JsonObject, where: string, problems: Problem[]): void {
  const payTo = entry.payTo;
  if (typeof payTo !== "string" || !SOLANA_ADDRESS.test(payTo)) {
    problems.push(
      problem(
        "pay_to_invalid",
        "error",
        `payTo ${JSON.stringify(payTo ?? null)} is not a base58 Solana address`,
        `${where}.payTo`,
      ),
    );
  }
  const feePayer = isObject(entry.extra) ? entry.extra.feePayer : undefined;
  if (typeof feePayer !== "string" || feePayer === "") {
    problems.push(
      problem("solana_fee_payer_missing", "error", "extra.feePayer is missing", `${where}.extra.feePayer`),
    );
  } else if (!SOLANA_ADDRESS.test(feePayer)) {
    problems.push(
      problem(
        "solana_fee_payer_mismatch",
        "error",
        "extra.feePayer is not a Solana address",
        `${where}.extra.feePayer`,
      ),
    );
  }
}

function checkScheme(scheme: unknown, where: string, problems: Problem[]): void {
  if (typeof scheme !== "string" || scheme === "") {
    problems.push(problem("scheme_unsupported", "error", "scheme is missing", `${where}.scheme`));
  } else if (scheme !== "exact") {
    problems.push(
      problem(
        "scheme_unsupported",
        "warning",
        `scheme "${scheme}": most clients pay only "exact"`,
        `${where}.scheme`,
      ),
    );
  }
}

/** Whether the asset is the network's USDC; says which network's USDC it is when it is another's. */
function checkUsdc(
  asset: string,
  caip2: string | undefined,
  network: NetworkInfo | undefined,
  where: string,
  problems: Problem[],
): boolean {
  if (!network) {
    if (caip2) {
      problems.push(
        problem(
          "asset_not_usdc",
          "info",
          `network ${caip2} is not one this doctor knows; asset and domain were not checked`,
          `${where}.network`,
        ),
      );
    }
    return false;
  }
  if (sameAddress(asset, network.usdc.address, network)) return true;
  const elsewhere = KNOWN.find((n) => n !== network && sameAddress(asset, n.usdc.address, n));
  if (elsewhere) {
    problems.push(
      problem(
        "asset_wrong_network",
        "error",
        `asset is USDC of ${elsewhere.caip2}, not of ${network.caip2} (${network.usdc.address})`,
        `${where}.asset`,
      ),
    );
  } else {
    problems.push(
      problem(
        "asset_not_usdc",
        "warning",
        `asset is not USDC on ${network.caip2} (${network.usdc.address})`,
        `${where}.asset`,
      ),
    );
  }
  return false;
}

/** The checks particular to EVM or Solana options, by the network's kind (or its CAIP-2 namespace). */
function checkByKind(
  entry: JsonObject,
  caip2: string | undefined,
  network: NetworkInfo | undefined,
  asset: string,
  where: string,
  problems: Problem[],
): void {
  const kind =
    network?.kind ??
    (caip2?.startsWith("eip155:") ? "evm" : caip2?.startsWith("solana:") ? "svm" : undefined);
  if (kind === "evm") {
    if (!EVM_HEX_ADDRESS.test(asset)) {
      problems.push(
        problem("asset_wrong_network", "error", "asset is not a 20-byte hex address", `${where}.asset`),
      );
    }
    if (entry.scheme === "exact") checkEvmOption(entry, network, asset, where, problems);
  } else if (kind === "svm") {
    checkSolanaOption(entry, where, problems);
  }
}

function checkTimeout(timeout: unknown, where: string, problems: Problem[]): void {
  const flag = (message: string) =>
    problems.push(problem("max_timeout_out_of_range", "warning", message, `${where}.maxTimeoutSeconds`));
  if (typeof timeout !== "number" || !Number.isInteger(timeout)) {
    flag("maxTimeoutSeconds is missing or not an integer");
  } else if (timeout < 30) {
    flag(`maxTimeoutSeconds ${timeout} may expire before settlement`);
  } else if (timeout > 3600) {
    flag(`maxTimeoutSeconds ${timeout} leaves authorizations open for over an hour`);
  }
}

function checkOption(entry: unknown, index: number, problems: Problem[]): PriceItem | undefined {
  const where = `accepts[${index}]`;
  if (!isObject(entry)) {
    problems.push(problem("invalid_payment_requirements", "error", `${where} is not an object`, where));
    return undefined;
  }
  const scheme = entry.scheme;
  checkScheme(scheme, where, problems);
  const caip2 = checkNetwork(entry.network, `${where}.network`, problems);
  const network = caip2 ? networkByCaip2(caip2) : undefined;
  const amount = checkAmount(entry, where, problems);

  const asset = entry.asset;
  if (typeof asset !== "string" || asset === "") {
    problems.push(problem("asset_wrong_network", "error", "asset is missing", `${where}.asset`));
    return undefined;
  }
  const isUsdc = checkUsdc(asset, caip2, network, where, problems);
  checkByKind(entry, caip2, network, asset, where, problems);
  checkTimeout(entry.maxTimeoutSeconds, where, problems);

  if (!caip2 || amount === undefined || typeof scheme !== "string") return undefined;
  const usd = isUsdc ? Number(amount) / 1e6 : null;
  if (usd !== null && usd > SUSPICIOUS_USD) {
    problems.push(
      problem(
        "amount_suspicious",
        "warning",
        `amount ${amount} is ${usd} USD per call: mis-scaled decimals?`,
        `${where}.amount`,
      ),
    );
  }
  return {
    usd,
    network: caip2,
    asset,
    scheme,
    amount,
    payTo: typeof entry.payTo === "string" ? entry.payTo : "",
  };
}

/** Checks a decoded v2 PaymentRequired. `requestedUrl` is the URL the challenge answered. */
export function checkPaymentRequired(paymentRequired: JsonObject, requestedUrl?: string): RequirementsReport {
  const problems: Problem[] = [];
  const version = typeof paymentRequired.x402Version === "number" ? paymentRequired.x402Version : null;
  if (version !== 2) {
    problems.push(
      problem(
        "challenge_version_unsupported",
        "error",
        `x402Version is ${JSON.stringify(paymentRequired.x402Version ?? null)}; v2 clients expect 2`,
        "x402Version",
      ),
    );
  }
  const accepts = paymentRequired.accepts;
  if (!Array.isArray(accepts) || accepts.length === 0) {
    problems.push(problem("accepts_empty", "error", "accepts is missing or empty", "accepts"));
  }
  const price = (Array.isArray(accepts) ? accepts : [])
    .map((entry, i) => checkOption(entry, i, problems))
    .filter((p): p is PriceItem => p !== undefined);
  if (price.length > 0) {
    const networks = price.map((p) => networkByCaip2(p.network));
    if (networks.every((n) => n?.testnet)) {
      problems.push(problem("testnet_only", "warning", "every option is on a testnet", "accepts"));
    }
  }
  if (requestedUrl) checkResource(paymentRequired.resource, requestedUrl, problems);
  return {
    x402Version: version,
    problems,
    price,
    payTo: [...new Set(price.map((p) => p.payTo).filter(Boolean))],
  };
}

function checkResource(resource: unknown, requestedUrl: string, problems: Problem[]): void {
  const declared = isObject(resource) ? resource.url : undefined;
  if (typeof declared !== "string" || declared === "") {
    problems.push(
      problem("resource_url_mismatch", "info", "the challenge names no resource.url", "resource.url"),
    );
    return;
  }
  let url: URL;
  try {
    url = new URL(declared);
  } catch {
    problems.push(
      problem(
        "resource_url_mismatch",
        "warning",
        `resource.url "${declared}" is not an absolute URL`,
        "resource.url",
      ),
    );
    return;
  }
  const requested = new URL(requestedUrl);
  if (url.host !== requested.host || url.pathname !== requested.pathname) {
    problems.push(
      problem(
        "resource_url_mismatch",
        "warning",
        `resource.url is ${url.origin}${url.pathname}, the request went to ${requested.origin}${requested.pathname}`,
        "resource.url",
      ),
    );
  } else if (url.protocol !== requested.protocol) {
    problems.push(
      problem(
        "resource_url_mismatch",
        "warning",
        `resource.url says ${url.protocol.slice(0, -1)}, the request was ${requested.protocol.slice(0, -1)} (TLS proxy?)`,
        "resource.url",
      ),
    );
  }
}

/** A v1 body-style 402, read for its prices; the version itself is reported as the problem. */
export function checkV1Body(body: JsonObject): RequirementsReport {
  const problems: Problem[] = [
    problem(
      "challenge_v1_only",
      "error",
      "the 402 is a v1 body-style challenge without a PAYMENT-REQUIRED header",
      "body",
    ),
  ];
  const accepts = Array.isArray(body.accepts) ? body.accepts : [];
  const price: PriceItem[] = [];
  for (const entry of accepts) {
    if (!isObject(entry)) continue;
    const caip2 =
      typeof entry.network === "string" ? (LEGACY_NAMES[entry.network] ?? entry.network) : undefined;
    const amount = entry.maxAmountRequired ?? entry.amount;
    if (!caip2 || typeof amount !== "string" || !/^\d+$/.test(amount) || typeof entry.asset !== "string")
      continue;
    const network = networkByCaip2(caip2);
    const isUsdc = network ? sameAddress(entry.asset, network.usdc.address, network) : false;
    price.push({
      usd: isUsdc ? Number(amount) / 1e6 : null,
      network: caip2,
      asset: entry.asset,
      scheme: typeof entry.scheme === "string" ? entry.scheme : "",
      amount,
      payTo: typeof entry.payTo === "string" ? entry.payTo : "",
    });
  }
  return { x402Version: 1, problems, price, payTo: [...new Set(price.map((p) => p.payTo).filter(Boolean))] };
}
