/** A command-line mistake: printed as `paycall: <message>` without a stack, exit code 1. */
export class CliError extends Error {}
