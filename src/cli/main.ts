#!/usr/bin/env node
/**
 * @module The `priv-stark` command.
 */

import { doctor, formatDoctor } from './doctor.js';
import { runStart } from './start.js';
import { depositCommand, POOL_USAGE, poolCommand } from './pool.js';
import { CHAIN_USAGE, chainCommand } from './chain.js';
import { demoCommand } from './demo.js';
import { MCP_USAGE, mcpCommand } from './mcp.js';
import { payCommand } from './pay.js';
import { WALLET_USAGE, walletCommand } from './wallet.js';

const USAGE = `usage: priv-stark <command>

commands:
  start [options]   the facilitator and the devnet pool node (default; start --help)
  doctor [--json]   which proof backends load (native, wasm), their versions and a self-test
${POOL_USAGE}
${WALLET_USAGE}
${MCP_USAGE}
${CHAIN_USAGE}
  demo [--payments N]
                    facilitator, pool node and a paywalled merchant in one process: funds a payer, pays N
                    times, the merchant spends what it received; each step with its timing
  demo --chain      the same on a local chain (anvil, from the optional @foundry-rs/anvil) with real
                    transfers: an agent deposits test USDC by signature, pays two x402 merchants
                    privately, a merchant exits to its EVM address and receives USDC on chain; ends
                    with one JSON line
  help              this text`;

async function main(argv: string[]): Promise<number> {
  const [command = 'start', ...rest] = argv;
  switch (command) {
    case 'start':
      return runStart(rest);
    case 'doctor': {
      const report = await doctor();
      process.stdout.write(
        `${rest.includes('--json') ? JSON.stringify(report, null, 2) : formatDoctor(report)}\n`,
      );
      return report.ok ? 0 : 1;
    }
    case 'pool':
      return poolCommand(rest);
    case 'deposit':
      return depositCommand(rest);
    case 'wallet':
      return walletCommand(rest);
    case 'pay':
      return payCommand(rest);
    case 'demo':
      return demoCommand(rest);
    case 'mcp':
      return mcpCommand(rest);
    case 'chain':
      return chainCommand(rest);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`unknown command: ${command.slice(0, 40)}\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`priv-stark: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
