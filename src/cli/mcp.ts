/**
 * @module `priv-stark mcp`: the MCP server for agents, on stdio (default) or streamable HTTP on
 * loopback. It pays from the wallet file only within the operator's policy file, and keeps its
 * spend ledger beside the wallet. In stdio mode stdout carries the protocol alone: logs, and
 * anything a library prints, go to stderr. With `--ready-notes COUNTxVALUE` a ReadyNotesKeeper runs
 * beside the sync timer, so the agent can pay several merchants at once and again right after a
 * payment; its splits keep value in the wallet and are not spending (the spend ledger never links
 * them).
 */

import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';

import {
  PoolNodeError,
  READY_NOTES_MAX,
  ReadyNotesKeeper,
  type ReadyNotesTarget,
  Wallet,
  WalletError,
} from '../client/index.js';
import { loadCore } from '../core/index.js';
import { parseAmount } from '../scheme/index.js';
import { type McpBackingCheck, mcpBackingCheck, startMcpBackingCheck } from './mcp-backing.js';
import { TRANSPORT_FLAGS, TRANSPORT_USAGE } from './transport-flags.js';
import { walletLocation } from './wallet.js';
import { walletNetwork } from './wallet-network.js';

export const MCP_USAGE = `  mcp [--http PORT] [--policy FILE] [--ledger FILE] [--wallet FILE] [--pool URL] [--pool-mirror URL]
                    [--ready-notes CxV] ${TRANSPORT_USAGE}
                    MCP server for agents (stdio; --http: streamable HTTP on 127.0.0.1, PRIV_STARK_MCP_TOKEN
                    for a bearer token): pays with the wallet only within the operator's policy file
                    (PRIV_STARK_POLICY, ./priv-stark.policy.json); spend ledger PRIV_STARK_LEDGER,
                    <wallet>.spend.json; --ready-notes 8x100000 (PRIV_STARK_READY_NOTES) keeps 8 notes of
                    at least 100000 spendable for payments at once; --transitions-per-minute N
                    (PRIV_STARK_TRANSITIONS_PER_MINUTE, 6) caps merge_notes and split_note; --pool-mirror
                    (PRIV_STARK_POOL_MIRROR) reads the public log from a cache or mirror (docs/mcp.md);
                    --transport and --pool-proxy as for pay (the direct path's warning on stderr);
                    in a chain pool, --evm-key-file FILE (PRIV_STARK_EVM_KEY_FILE) and --chain-rpc URL
                    (CHAIN_RPC_URL) let the deposit tool fund the wallet from that EVM account; with
                    --chain-rpc the wallet checks its notes against the escrow's latest attestation in
                    the background, never next to a payment, through --pool-proxy, on average every
                    --backing-check-every-ms N (PRIV_STARK_BACKING_CHECK_EVERY_MS, 3600000; 0: never)`;

/**
 * `--ready-notes COUNTxVALUE` (`8x100000`: eight notes of at least 100,000 atomic units).
 * @returns the target, `null` when unset or empty (no keeper)
 * @throws RangeError naming the expected form when malformed
 */
export function parseReadyNotes(text: string | undefined): ReadyNotesTarget | null {
  if (text === undefined || text === '') return null;
  const match = /^([1-9][0-9]{0,2})x([0-9]{1,19})$/.exec(text);
  const count = match ? Number(match[1]) : 0;
  const value = match ? parseAmount(match[2]) : null;
  if (!match || !(count >= 1 && count <= READY_NOTES_MAX) || value === null)
    throw new RangeError(
      `--ready-notes expects COUNTxVALUE: COUNT notes (1..${READY_NOTES_MAX}) of at least VALUE atomic units (positive, below 2^62), e.g. 8x100000; got ${JSON.stringify(text.slice(0, 40))}`,
    );
  return { count, value };
}

/** A running keeper and what watches it for the log. */
export interface KeptReadyNotes {
  readonly keeper: ReadyNotesKeeper;
  /** Stops the keeper (after the round under way) and its watch. */
  stop(): Promise<void>;
}

/**
 * Starts a ReadyNotesKeeper over `wallet`, logging its refused splits (each distinct message once
 * in a row), when the count is first reached, and — once — when `warnAfterMs` (5 minutes) passes
 * without. Nothing of it keeps the process alive.
 */
export function keepReadyNotes(
  wallet: Wallet,
  target: ReadyNotesTarget,
  log: (line: string) => void,
  options: { intervalMs?: number | undefined; warnAfterMs?: number | undefined } = {},
): KeptReadyNotes {
  let last = '';
  const keeper = new ReadyNotesKeeper(wallet, target, {
    intervalMs: options.intervalMs,
    onError: (error) => {
      const line =
        error instanceof WalletError || error instanceof PoolNodeError
          ? `${error.code}: ${error.message}`
          : String((error as Error)?.message ?? error);
      if (line !== last) log(`ready notes: a split failed: ${line}`);
      last = line;
    },
  }).start();
  log(`ready notes: keeping ${target.count} notes of at least ${target.value} atomic units`);
  const warnAt = Date.now() + (options.warnAfterMs ?? 5 * 60_000);
  let warned = false;
  const watch = setInterval(() => {
    const ready = keeper.ready();
    if (ready >= target.count) {
      clearInterval(watch);
      log(`ready notes: ${ready} of ${target.count} spendable`);
    } else if (!warned && Date.now() >= warnAt) {
      warned = true;
      log(
        `ready notes: ${ready} of ${target.count} after ${options.warnAfterMs ?? 5 * 60_000} ms: the wallet holds too little, or the pool does not answer; still trying`,
      );
    }
  }, options.intervalMs ?? 500);
  watch.unref();
  return {
    keeper,
    async stop() {
      clearInterval(watch);
      await keeper.stop();
    },
  };
}

/**
 * The deposit tool's account and RPC: `--evm-key-file` (PRIV_STARK_EVM_KEY_FILE, refused as the
 * operator's key files are) with `--chain-rpc` (CHAIN_RPC_URL); neither: no deposits.
 * @throws Error naming the flag when one comes without the other, or the key file is refused
 */
async function depositConfig(
  values: { 'evm-key-file'?: string | undefined; 'chain-rpc'?: string | undefined },
  env: NodeJS.ProcessEnv,
) {
  const keyFile = values['evm-key-file'] ?? (env.PRIV_STARK_EVM_KEY_FILE || undefined);
  const rpc = values['chain-rpc'] ?? (env.CHAIN_RPC_URL || undefined);
  if (keyFile === undefined) return undefined;
  if (rpc === undefined || !/^https?:\/\/\S+$/.test(rpc))
    throw new Error("--evm-key-file needs --chain-rpc URL (CHAIN_RPC_URL): the server's own RPC");
  const { KeyError, readKeyFile } = await import('../chain/keys.js');
  try {
    return { account: readKeyFile(keyFile), rpc };
  } catch (error) {
    if (error instanceof KeyError) throw new Error(`${error.code}: ${error.message}`);
    throw error;
  }
}

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
      'pool-mirror': { type: 'string' },
      ...TRANSPORT_FLAGS,
      'sync-interval-ms': { type: 'string' },
      'ready-notes': { type: 'string' },
      'transitions-per-minute': { type: 'string' },
      'evm-key-file': { type: 'string' },
      'chain-rpc': { type: 'string' },
      'backing-check-every-ms': { type: 'string' },
    },
    strict: true,
  });
  let readyNotes: ReadyNotesTarget | null;
  try {
    readyNotes = parseReadyNotes(values['ready-notes'] ?? env.PRIV_STARK_READY_NOTES);
  } catch (error) {
    log((error as Error).message);
    return 2;
  }
  const perMinuteText = values['transitions-per-minute'] ?? env.PRIV_STARK_TRANSITIONS_PER_MINUTE;
  if (perMinuteText !== undefined && !/^(0|[1-9][0-9]{0,5})$/.test(perMinuteText)) {
    log('--transitions-per-minute expects a whole number, 0 (none) to 999999');
    return 2;
  }
  const transitionsPerMinute = perMinuteText === undefined ? undefined : Number(perMinuteText);
  let deposits: Awaited<ReturnType<typeof depositConfig>>;
  try {
    deposits = await depositConfig(values, env);
  } catch (error) {
    log((error as Error).message);
    return 2;
  }
  let backing: McpBackingCheck | null;
  try {
    const rpc = values['chain-rpc'] ?? (env.CHAIN_RPC_URL || undefined);
    if (rpc !== undefined && !/^https?:\/\/\S+$/.test(rpc))
      throw new RangeError('--chain-rpc expects an http(s) URL (CHAIN_RPC_URL)');
    const every = values['backing-check-every-ms'] ?? env.PRIV_STARK_BACKING_CHECK_EVERY_MS;
    backing = mcpBackingCheck(rpc, every);
  } catch (error) {
    log((error as Error).message);
    return 2;
  }
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
  let keeper: KeptReadyNotes | undefined;
  let wallet: Wallet | undefined;
  let stopped = false;
  const stop = async () => {
    stopped = true;
    clearTimeout(timer);
    // The backing check sends nothing more.
    await wallet?.stop();
    // After the round under way: a split already sent settles (or expires) as a payment does.
    await keeper?.stop();
    await ledger.close();
  };
  const onSignal = () => {
    void stop().finally(() => process.exit(0));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const core = await loadCore();
    wallet = await Wallet.open({ core, ...where, network: await walletNetwork(where) });
    const agent = new PaymentAgent({ wallet, policy, ledger, transitionsPerMinute, deposits });
    await agent.start();
    if (syncEvery > 0) {
      // The wallet syncs on its own schedule, not at payment time, each interval drawn anew
      // (half to one and a half times the mean): a fixed period would name the wallet's syncs.
      const mean = Math.max(1000, syncEvery);
      const next = () => {
        if (stopped) return;
        timer = setTimeout(() => {
          void agent
            .sync()
            .catch((error: unknown) => log(`sync failed: ${(error as Error).message}`))
            .finally(next);
        }, jitteredMs(mean));
        timer.unref();
      };
      next();
    }
    // Splits keep value in the wallet: the spend ledger never links them (not spending), and the
    // keeper splits only while fewer than its count are ready.
    if (readyNotes) keeper = keepReadyNotes(wallet, readyNotes, log);
    if (backing) await startMcpBackingCheck(wallet, backing, log);
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

/** An interval of mean `meanMs`, uniform in [0.5, 1.5) of it (the platform's cryptographic draw). */
export function jitteredMs(meanMs: number): number {
  return Math.round(meanMs * (0.5 + randomInt(0, 2 ** 32) / 2 ** 32));
}
