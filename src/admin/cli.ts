// `npm run stats -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]`: the operator figures from the store,
// with no server running.
import { CliError } from "../cli-error.ts";
import { loadConfig } from "../config.ts";
import { buildFamilies, openServiceStore } from "../service.ts";
import { parsePeriod } from "./period.ts";
import { collectStats, declaredWarmers } from "./stats.ts";
import { formatStatsText } from "./text-report.ts";

const STATS_USAGE = "usage: npm run stats -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]";

interface StatsArgs {
  from?: string;
  to?: string;
  json: boolean;
}

function parseStatsArgs(argv: string[]): StatsArgs {
  const args: StatsArgs = { json: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = (argv[i] ?? "").split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === "--json" && inline === undefined) {
      args.json = true;
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

export async function statsCommand(argv: string[], write: (text: string) => void): Promise<void> {
  const args = parseStatsArgs(argv);
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
