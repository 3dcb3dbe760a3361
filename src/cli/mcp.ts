/**
 * @module `priv-stark mcp`: the MCP server for agents, on stdio (default) or streamable HTTP on
 * loopback. It pays from the wallet file only within the operator's policy file, and keeps its
 * spend ledger beside the wallet. In stdio mode stdout carries the protocol alone: logs, and
 * anything a library prints, go to stderr.
 */

import { parseArgs } from 'node:util';

import { Wallet } from '../client/index.js';
import { loadCore } from '../core/index.js';
import { walletLocation } from './wallet.js';

export const MCP_USAGE = `  mcp [--http PORT] [--policy FILE] [--ledger FILE] [--wallet FILE] [--pool URL]
                    MCP server for agents (stdio; --http: streamable HTTP on 127.0.0.1, PRIV_STARK_MCP_TOKEN
                    for a bearer token): pays with the wallet only within the operator's policy file
                    (PRIV_STARK_POLICY, ./priv-stark.policy.json); spend ledger PRIV_STARK_LEDGER,
                    <wallet>.spend.json (docs/mcp.md)`;

const log = (line: string): void => {
  process.stderr.write(`priv-stark mcp: ${line}\n`);
};

/**
 * The `mcp` command; resolves when the server stops.
 * @returns the exit code
 */
export async function mcpCommand(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      http: { type: 'string' },
      policy: { type: 'string' },
      ledger: { type: 'string' },
      wallet: { type: 'string' },
      pool: { type: 'string' },
      'sync-interval-ms': { type: 'string' },
    },
    strict: true,
  });
  const stdio = values.http === undefined;
  if (stdio) {
    // Only MCP messages may reach stdout.
    console.log = console.error;
    console.info = console.error;
    console.debug = console.error;
  }
  const where = walletLocation(values, env);
  const policyPath = values.policy ?? env.PRIV_STARK_POLICY ?? './priv-stark.policy.json';
  const ledgerPath = values.ledger ?? env.PRIV_STARK_LEDGER ?? `${where.path}.spend.json`;
  const syncEvery = Number(values['sync-interval-ms'] ?? env.PRIV_STARK_SYNC_INTERVAL_MS ?? 30_000);
  const port = values.http === undefined ? null : Number(values.http);
  if (port !== null && !(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new RangeError('--http expects a port number');

  // Loaded here, so that other commands do not load the MCP SDK.
  const { LedgerFile, PaymentAgent, PolicyFile, serveHttp, serveStdio } = await import(
    '../mcp/index.js'
  );
  const policy = new PolicyFile(policyPath);
  await policy.current(); // fail fast on a missing or unsafe policy file
  const ledger = await LedgerFile.open(ledgerPath); // and on a ledger another server holds
  let timer: NodeJS.Timeout | undefined;
  const stop = async () => {
    clearInterval(timer);
    await ledger.close();
  };
  const onSignal = () => {
    void stop().finally(() => process.exit(0));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const core = await loadCore();
    const wallet = await Wallet.open({ core, pool: where.pool, path: where.path });
    const agent = new PaymentAgent({ wallet, policy, ledger });
    await agent.start();
    if (syncEvery > 0) {
      // The wallet syncs on its own schedule, not at payment time.
      timer = setInterval(
        () =>
          void agent
            .sync()
            .catch((error: unknown) => log(`sync failed: ${(error as Error).message}`)),
        Math.max(1000, syncEvery),
      );
      timer.unref();
    }
    if (port === null) {
      log(`serving on stdio (pool ${where.pool})`);
      await serveStdio(agent, log);
      return 0;
    }
    const endpoint = await serveHttp(agent, {
      port,
      token: env.PRIV_STARK_MCP_TOKEN || undefined,
      log,
    });
    log(`serving streamable HTTP at ${endpoint.url} (pool ${where.pool})`);
    process.stdout.write(`${endpoint.url}\n`);
    await new Promise<never>(() => undefined);
    return 0;
  } finally {
    await stop();
  }
}
