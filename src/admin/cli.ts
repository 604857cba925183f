// `npm run stats -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]`: the operator figures from the store,
// with no server running. `npm run stats -- --refund-channel <network> <channel>`: asks the running service
// (PUBLIC_URL, with ADMIN_TOKEN) to refund a batch-settlement channel's remainder.
import { CliError } from "../cli-error.ts";
import { loadConfig } from "../config.ts";
import { buildFamilies, openServiceStore } from "../service.ts";
import { parsePeriod } from "./period.ts";
import { collectStats, declaredWarmers } from "./stats.ts";
import { formatStatsText } from "./text-report.ts";

const STATS_USAGE =
  "usage: npm run stats -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json] | --refund-channel <network> <channel>";

interface StatsArgs {
  from?: string;
  to?: string;
  json: boolean;
  refundChannel?: { network: string; channel: string };
}

function parseStatsArgs(argv: string[]): StatsArgs {
  const args: StatsArgs = { json: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = (argv[i] ?? "").split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === "--json" && inline === undefined) {
      args.json = true;
    } else if (flag === "--refund-channel" && inline === undefined) {
      const [network, channel] = [argv[++i], argv[++i]];
      if (!network || !channel)
        throw new CliError(`--refund-channel needs a network and a channel; ${STATS_USAGE}`);
      args.refundChannel = { network, channel };
    } else if (flag === "--from" || flag === "--to") {
      const value = inline ?? argv[++i];
      if (value === undefined || value.startsWith("--"))
        throw new CliError(`${flag} needs a date; ${STATS_USAGE}`);
      args[flag === "--from" ? "from" : "to"] = value;
    } else {
      throw new CliError(`unknown argument "${argv[i]}"; ${STATS_USAGE}`);
    }
  }
  return args;
}

/** The running service refunds the channel (it holds the facilitators and the receiver authorizer). */
async function refundChannel(target: { network: string; channel: string }, write: (text: string) => void) {
  const config = loadConfig();
  if (!config.adminToken) throw new CliError("--refund-channel needs ADMIN_TOKEN (the running service's)");
  const response = await fetch(`${config.publicUrl}/admin/channels/refund`, {
    method: "POST",
    headers: { authorization: `Bearer ${config.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(target),
  }).catch((error: unknown) => {
    throw new CliError(`cannot reach the service at ${config.publicUrl}: ${String(error)}`);
  });
  const text = await response.text();
  if (!response.ok) throw new CliError(`the channel was not refunded (${response.status}): ${text}`);
  write(`${text}\n`);
}

export async function statsCommand(argv: string[], write: (text: string) => void): Promise<void> {
  const args = parseStatsArgs(argv);
  if (args.refundChannel) return refundChannel(args.refundChannel, write);
  const period = parsePeriod({
    ...(args.from !== undefined ? { from: args.from } : {}),
    ...(args.to !== undefined ? { to: args.to } : {}),
  });
  if (!period.ok) throw new CliError(`--${period.message}`);
  const config = loadConfig();
  const families = buildFamilies(config);
  const store = await openServiceStore(config, families);
  try {
    const stats = await collectStats(store, period.period, {
      warmers: declaredWarmers(families),
      inFlight: { limit: config.paidCallsMaxInFlight },
    });
    write(args.json ? `${JSON.stringify(stats, null, 2)}\n` : formatStatsText(stats));
  } finally {
    await store.close();
  }
}
