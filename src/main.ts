// CLI entry: serve | migrate | buy | faucet | ingest | preflight | stats | mcp-config | mcp-buy.

// Each command imports what it needs when it runs: `serve` never holds the buyer, preflight or stats code.
import { CliError } from "./cli-error.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { errorText } from "./json.ts";

const USAGE =
  "usage: node src/main.ts <serve|migrate|buy|faucet|ingest|preflight|stats|mcp-config|mcp-buy|ownership-proof> [...]";

async function serve() {
  const { startService } = await import("./service.ts");
  const config = loadConfig();
  const service = await startService(config, { releaseMemory: config.releaseMemory });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const { shutdownGraceMs, shutdownDelayMs } = service.config;
    service.ctx.log.info(
      { signal, shutdownDelayMs, shutdownGraceMs },
      "shutting down: /ready is 503; finishing in-flight requests and jobs",
    );
    await service.shutdown({ readyDelayMs: shutdownDelayMs, graceMs: shutdownGraceMs });
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

async function faucet(argv: string[]) {
  const [address, usd] = argv;
  if (!address || !usd) throw new CliError("usage: npm run faucet -- <address> <usd>");
  const { isEvmAddress, isSolanaAddress } = await import("./x402/shared/networks.ts");
  const kind = isEvmAddress(address) ? "evm" : isSolanaAddress(address) ? "svm" : undefined;
  if (!kind)
    throw new CliError(`"${address}" is neither a 0x-prefixed EVM address nor a base58 Solana address`);
  const config = loadConfig();
  if (config.facilitator.kind !== "local")
    throw new CliError("the faucet credits the local facilitator's pretend USDC; FACILITATOR_URL is set");
  const { openServiceStore } = await import("./service.ts");
  const { creditWallet } = await import("./x402/facilitator/facilitator.ts");
  const store = await openServiceStore(config);
  try {
    const networks = config.networks.filter((n) => n.kind === kind);
    if (networks.length === 0)
      throw new CliError(
        `NETWORKS (${config.networks.map((n) => n.name).join(",")}) has no ${kind === "evm" ? "EVM" : "Solana"} network for "${address}"`,
      );
    for (const network of networks) {
      const balance = await creditWallet(store, network, address, usd);
      process.stdout.write(
        `${address} on ${network.name}: balance ${balance} USD (pretend USDC; no real money)\n`,
      );
    }
  } catch (error) {
    throw new CliError(errorText(error));
  } finally {
    await store.close();
  }
}

async function ingestFile(argv: string[]) {
  const { INGEST_KINDS, IngestError, ingest } = await import("./products/mountain/index.ts");
  const { openServiceStore } = await import("./service.ts");
  const [kind, file] = argv;
  if (!kind || !file) {
    throw new CliError(
      `usage: npm run ingest -- <kind> <file.json|file.csv>; kinds: ${INGEST_KINDS.join(", ")}`,
    );
  }
  const store = await openServiceStore(loadConfig());
  try {
    const result = await ingest(store, kind, file);
    process.stdout.write(
      `${file}: ${result.rows} ${result.kind} rows imported (${result.inserted} new, ${result.updated} updated)\n`,
    );
  } catch (error) {
    if (error instanceof IngestError) throw new CliError(error.message);
    throw error;
  } finally {
    await store.close();
  }
}

/** Prints the preflight table; exits 1 when any check is a blocker. */
async function preflight() {
  const { formatPreflightTable, hasBlocker, runPreflight } = await import("./preflight/run.ts");
  const { buildFamilies } = await import("./service.ts");
  const { UpstreamRegistry } = await import("./upstream/registry.ts");
  const config = loadConfig();
  const families = buildFamilies(config);
  const userAgent = new UpstreamRegistry(config, undefined).userAgent;
  const rows = await runPreflight(config, families, userAgent);
  process.stdout.write(`${formatPreflightTable(rows)}\n`);
  process.exitCode = hasBlocker(rows) ? 1 : 0;
}

/** The origin signed with the pay-to key (PAY_TO_PRIVATE_KEY, read here only), for OWNERSHIP_PROOFS. */
async function printOwnershipProof() {
  const key = process.env.PAY_TO_PRIVATE_KEY;
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new CliError(
      "set PAY_TO_PRIVATE_KEY to the pay-to address's key (0x + 64 hex digits) for this one command; it is not stored",
    );
  }
  const { originOf, ownershipProof } = await import("./x402/seller/ownership-proof.ts");
  const config = loadConfig();
  const proof = await ownershipProof(config.publicUrl, key as `0x${string}`);
  process.stdout.write(`origin signed: ${originOf(config.publicUrl)}\nOWNERSHIP_PROOFS=${proof}\n`);
}

async function main(argv: string[]) {
  const [command = "serve", ...rest] = argv;
  switch (command) {
    case "serve":
      return serve();
    case "migrate": {
      const { openServiceStore } = await import("./service.ts");
      const store = await openServiceStore(loadConfig());
      await store.close();
      process.stdout.write("migrations applied\n");
      return;
    }
    case "buy": {
      const { buy, parseBuyArgs } = await import("./buyer/buy.ts");
      process.exitCode = await buy(loadConfig(), parseBuyArgs(rest), (line) =>
        process.stdout.write(`${line}\n`),
      );
      return;
    }
    case "faucet":
      return faucet(rest);
    case "ingest":
      return ingestFile(rest);
    case "preflight":
      return preflight();
    case "mcp-config": {
      const { mcpClientConfig } = await import("./mcp/client-config.ts");
      process.stdout.write(mcpClientConfig(loadConfig()));
      return;
    }
    case "ownership-proof":
      return printOwnershipProof();
    case "mcp-buy": {
      const { runBridge } = await import("./mcp-bridge/bridge.ts");
      const { parseBridgeOptions } = await import("./mcp-bridge/options.ts");
      const config = loadConfig();
      return runBridge(config, parseBridgeOptions(config, rest, process.env));
    }
    case "stats": {
      const { statsCommand } = await import("./admin/cli.ts");
      return statsCommand(rest, (text) => process.stdout.write(text));
    }
    default:
      throw new CliError(`unknown command "${command}"; ${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof CliError) {
    process.stderr.write(`paycall: ${error.message}\n`);
  } else {
    process.stderr.write(
      `paycall: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
