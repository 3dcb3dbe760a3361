#!/usr/bin/env node
/**
 * @module The `priv-stark` command. Each subcommand's module is imported only when that command
 * runs: loading them all up front made `priv-stark wallet address` pay for the service, chain and
 * demo code (1.4 s instead of 0.5 s).
 */

import { rerunOnSupportedNode, stopWithFirstRun } from './supported-node.js';

/** A subcommand: its arguments after the command's name in, an exit code out. */
type Command = (rest: string[]) => Promise<number>;

const COMMANDS: Readonly<Record<string, Command>> = {
  start: async (rest) => (await import('./start.js')).runStart(rest),
  doctor: async (rest) => {
    const { doctor, formatDoctor } = await import('./doctor.js');
    const report = await doctor();
    process.stdout.write(
      `${rest.includes('--json') ? JSON.stringify(report, null, 2) : formatDoctor(report)}\n`,
    );
    return report.ok ? 0 : 1;
  },
  pool: async (rest) => (await import('./pool.js')).poolCommand(rest),
  deposit: async (rest) => (await import('./pool.js')).depositCommand(rest),
  wallet: async (rest) => (await import('./wallet.js')).walletCommand(rest),
  pay: async (rest) => (await import('./pay.js')).payCommand(rest),
  demo: async (rest) => (await import('./demo.js')).demoCommand(rest),
  mcp: async (rest) => (await import('./mcp.js')).mcpCommand(rest),
  chain: async (rest) => (await import('./chain.js')).chainCommand(rest),
  audit: async (rest) => (await import('./audit.js')).auditCommand(rest),
};

/** The top-level usage; only `help` and an unknown command need the subcommands' usage texts. */
async function usage(): Promise<string> {
  const [{ POOL_USAGE }, { WALLET_USAGE }, { MCP_USAGE }, { CHAIN_USAGE }, { AUDIT_USAGE }] =
    await Promise.all([
      import('./pool.js'),
      import('./wallet.js'),
      import('./mcp.js'),
      import('./chain.js'),
      import('./audit.js'),
    ]);
  return `usage: priv-stark <command>

commands:
  start [options]   the facilitator and the devnet pool node (default; start --help)
  doctor [--json]   which proof backends load (native, wasm), their versions and a self-test
${POOL_USAGE}
${WALLET_USAGE}
${MCP_USAGE}
${CHAIN_USAGE}
${AUDIT_USAGE}
  demo [--payments N]
                    facilitator, pool node and a paywalled merchant in one process: funds a payer, pays N
                    times, the merchant spends what it received; each step with its timing
  demo --chain      the same on a local chain (anvil, from the optional @foundry-rs/anvil) with real
                    transfers: an agent deposits test USDC by signature, pays two x402 merchants
                    privately, a merchant exits to its EVM address and receives USDC on chain; ends
                    with one JSON line
  help              this text`;
}

async function main(argv: string[]): Promise<number> {
  // Options without a command are `start`'s: `npm start -- --port 5000`.
  const first = argv[0];
  const implicitStart = first?.startsWith('-') && !['--help', '-h'].includes(first);
  const [command = 'start', ...rest] = implicitStart ? ['start', ...argv] : argv;
  // Own properties only: `toString` or `__proto__` is an unknown command, not an inherited function.
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run !== undefined) return run(rest);
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${await usage()}\n`);
    return 0;
  }
  process.stderr.write(`unknown command: ${command.slice(0, 40)}\n${await usage()}\n`);
  return 2;
}

const rest = process.argv.slice(2);
stopWithFirstRun();
rerunOnSupportedNode(rest)
  .then((status) => status ?? main(rest))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `priv-stark: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
