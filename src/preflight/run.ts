// `npm run preflight`: before going live, every enabled family's configuration and one cheap request to each
// of its upstreams (the checks each family declares in `Family.preflight`), each facilitator's /supported and
// the pay-to wallets, and what an indexer sees of every paid route at PUBLIC_URL, as one table. Any blocker makes the command exit non-zero.
import type { Family, PreflightContext, PreflightState, PreflightVerdict } from "../catalog/product.ts";
import { type Config, type FacilitatorEntry, redactUrl, usesLocalFacilitator } from "../config.ts";
import { errorText } from "../json.ts";
import { createEntryClient, facilitatorLabels } from "../x402/seller/facilitators/create.ts";
import { probeAsIndexer } from "./indexer-probe.ts";
import { hasPlaceholderContact } from "./live-requirements.ts";

const PREFLIGHT_TIMEOUT_MS = 10_000;

export interface PreflightRow {
  family: string;
  upstream: string;
  state: PreflightState;
  detail: string;
  fix: string;
}

interface PreflightOptions {
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
  /** The service's own listener; by default HOST and PORT on this host. */
  localUrl?: string;
}

/** The service's listener as this host reaches it (a wildcard HOST through the loopback address). */
function localListenerUrl(config: Config): string {
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
}

function row(family: string, upstream: string, verdict: PreflightVerdict): PreflightRow {
  return { family, upstream, state: verdict.state, detail: verdict.detail, fix: verdict.fix ?? "" };
}

/** A check that neither answers nor fails in time is a blocker, never a hung preflight. */
async function bounded(run: () => Promise<PreflightVerdict>, timeoutMs: number): Promise<PreflightVerdict> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      run().catch((error: unknown) => ({
        state: "blocker" as const,
        detail: `the check failed: ${errorText(error)}`,
      })),
      new Promise<PreflightVerdict>((resolve) => {
        timer = setTimeout(
          () => resolve({ state: "blocker", detail: `no answer within ${timeoutMs / 1000} s` }),
          timeoutMs + 1000,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function serviceRows(config: Config, userAgent: string): PreflightRow[] {
  const rows: PreflightRow[] = [];
  rows.push(
    config.upstreams === "replay"
      ? row("service", "upstreams", {
          state: "warn",
          detail: "UPSTREAMS=replay: answers are recorded samples; upstream checks skipped",
          fix: "Set UPSTREAMS=live to serve real data.",
        })
      : row("service", "upstreams", { state: "ok", detail: "UPSTREAMS=live" }),
  );
  rows.push(
    hasPlaceholderContact(userAgent)
      ? row("service", "contact", {
          state: "warn",
          detail: `every upstream sees the placeholder contact in the User-Agent: ${userAgent}`,
          fix: "Set CONTACT_EMAIL (and OPERATOR_NAME) to a reachable address.",
        })
      : row("service", "contact", { state: "ok", detail: `User-Agent: ${userAgent}` }),
  );
  return rows;
}

/** One facilitator's /supported: the exact scheme on every configured network, or a blocker naming the gap. */
async function facilitatorVerdict(
  config: Config,
  entry: FacilitatorEntry,
  timeoutMs: number,
): Promise<PreflightVerdict> {
  if (entry.kind === "local") {
    return {
      state: "warn",
      detail: "local facilitator: payments settle on a pretend USDC ledger, no real money moves",
      fix: "Set FACILITATOR_URL to a real x402 facilitator before taking payments.",
    };
  }
  const url = redactUrl(entry.url);
  const verdict = await bounded(async () => {
    const supported = await createEntryClient(entry, timeoutMs).getSupported();
    const kinds = supported.kinds ?? [];
    const missing = config.networks.filter(
      (n) => !kinds.some((k) => k.network === n.caip2 && k.scheme === "exact"),
    );
    if (missing.length > 0) {
      return {
        state: "blocker",
        detail: `${url}/supported lacks the exact scheme on ${missing.map((n) => `${n.name} (${n.caip2})`).join(", ")}`,
        fix: "Use a facilitator that settles these networks, or change NETWORKS.",
      };
    }
    return {
      state: "ok",
      detail: `${url}/supported: exact on ${config.networks.map((n) => n.name).join(", ")}`,
    };
  }, timeoutMs);
  return verdict.state === "blocker" && !verdict.fix
    ? { ...verdict, fix: "Check FACILITATOR_URL and its credentials (FACILITATOR_HEADERS or CDP keys)." }
    : verdict;
}

/**
 * A row per facilitator of FACILITATOR_URL. With several, one that fails is a warning while another settles
 * every network (payments go there), and a blocker when none does.
 */
async function facilitatorRows(config: Config, timeoutMs: number): Promise<PreflightRow[]> {
  const verdicts = await Promise.all(
    config.facilitators.map((entry) => facilitatorVerdict(config, entry, timeoutMs)),
  );
  if (verdicts.length === 1) return [row("payments", "facilitator", verdicts[0] as PreflightVerdict)];
  const labels = facilitatorLabels(config);
  const covered = verdicts.some((v) => v.state === "ok");
  return verdicts.map((verdict, i) =>
    row(
      "payments",
      `facilitator ${i + 1} ${labels[i]}`,
      verdict.state === "blocker" && covered
        ? { ...verdict, state: "warn", detail: `${verdict.detail} (payments go to the others meanwhile)` }
        : verdict,
    ),
  );
}

function walletRows(config: Config): PreflightRow[] {
  return config.networks.map((network) => {
    const address = network.kind === "evm" ? config.payTo.evm : config.payTo.solana;
    const variable = network.kind === "evm" ? "PAY_TO_EVM" : "PAY_TO_SOLANA";
    if (!address) {
      return row("payments", `wallet ${network.name}`, {
        state: usesLocalFacilitator(config) ? "warn" : "blocker",
        detail: `${variable} is not set${usesLocalFacilitator(config) ? ": a development address is generated into DATA_DIR" : ""}`,
        fix: `Set ${variable} to the address that receives payments on ${network.name}.`,
      });
    }
    if (network.testnet) {
      return row("payments", `wallet ${network.name}`, {
        state: "warn",
        detail: `pays to ${address} on a testnet (no real money)`,
        fix: "Use NETWORKS=base (or solana) to take real payments.",
      });
    }
    return row("payments", `wallet ${network.name}`, { state: "ok", detail: `pays to ${address}` });
  });
}

async function familyRows(family: Family, ctx: PreflightContext): Promise<PreflightRow[]> {
  if (family.unavailable) {
    return [
      row(family.name, "configuration", {
        state: family.unavailable.optIn ? "warn" : "blocker",
        detail: `disabled: ${family.unavailable.reason}`,
        fix: family.unavailable.fix,
      }),
    ];
  }
  const checks = family.preflight ?? [];
  if (checks.length === 0) return [row(family.name, "-", { state: "ok", detail: "nothing to check" })];
  return Promise.all(
    checks.map(async (check) =>
      row(family.name, check.upstream, await bounded(() => check.run(ctx), ctx.timeoutMs)),
    ),
  );
}

export async function runPreflight(
  config: Config,
  families: Family[],
  userAgent: string,
  options: PreflightOptions = {},
): Promise<PreflightRow[]> {
  const timeoutMs = options.timeoutMs ?? PREFLIGHT_TIMEOUT_MS;
  const ctx: PreflightContext = {
    config,
    userAgent,
    timeoutMs,
    ...(options.fetchImpl ? { fetchImpl: options.fetchImpl } : {}),
  };
  const rows = serviceRows(config, userAgent);
  const [facilitator, perFamily] = await Promise.all([
    facilitatorRows(config, timeoutMs),
    config.upstreams === "live"
      ? Promise.all(families.map((f) => familyRows(f, ctx)))
      : Promise.resolve([] as PreflightRow[][]),
  ]);
  rows.push(...facilitator, ...walletRows(config), ...perFamily.flat());
  const findings = await probeAsIndexer(
    config.publicUrl,
    options.fetchImpl ?? fetch,
    timeoutMs,
    options.localUrl ?? localListenerUrl(config),
  );
  rows.push(...findings.map((f) => row("indexers", f.route, f.verdict)));
  return rows;
}

export function hasBlocker(rows: PreflightRow[]): boolean {
  return rows.some((r) => r.state === "blocker");
}

const HEADERS = ["family", "upstream", "state", "detail", "what to fix"] as const;

/** A plain-text table, one line per check. */
export function formatPreflightTable(rows: PreflightRow[]): string {
  const cells = rows.map((r) => [r.family, r.upstream, r.state.toUpperCase(), r.detail, r.fix]);
  const widths = HEADERS.slice(0, 3).map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) =>
    [...c.slice(0, 3).map((v, i) => v.padEnd(widths[i]!)), c[3], c[4] ? `| ${c[4]}` : ""]
      .join("  ")
      .trimEnd();
  const blockers = rows.filter((r) => r.state === "blocker").length;
  const warnings = rows.filter((r) => r.state === "warn").length;
  return [
    line(HEADERS),
    ...cells.map(line),
    "",
    blockers > 0
      ? `${blockers} blocker(s), ${warnings} warning(s): fix the blockers before going live.`
      : `No blocker; ${warnings} warning(s).`,
  ].join("\n");
}
