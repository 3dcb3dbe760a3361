/**
 * @module `priv-stark start` (the default of `npm start`): the facilitator listener and the devnet
 * pool node over one pool — the embedded SQLite store in `./data`, or PostgreSQL with
 * `DATABASE_URL` (several instances may share it; give the others `--no-pool-node`). Settings by
 * flag or environment (priv-stark-v1.md §6). SIGTERM / SIGINT shut down gracefully: stop
 * accepting, finish in-flight requests (settles reach their durable commit), stop the checkpoint
 * timer, close the store.
 */

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import pg from 'pg';

import { loadCore, VerifierThreads } from '../core/index.js';
import { Facilitator } from '../facilitator/index.js';
import {
  ApiKeys,
  type AuthMode,
  build,
  ConfigError,
  FacilitatorMetrics,
  hashKey,
  isLoopbackHost,
  listenMetrics,
  loadAccessConfig,
  postgresRateLimitStore,
} from '../http/index.js';
import { buildPoolNode, parseCorsOrigins, resolveOperatorToken } from '../pool-node/index.js';
import { openStore, Ledger } from '../ledger/index.js';
import { DEVNET_NETWORK, SCHEME } from '../scheme/index.js';

/** Everything `start` needs. */
export interface StartConfig {
  readonly port: number;
  readonly host: string;
  readonly poolPort: number;
  /** Run the devnet pool node (default true; off for extra instances sharing PostgreSQL). */
  readonly poolNode: boolean;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly apiKeys: string | undefined;
  readonly configPath: string | undefined;
  readonly insecureNoAuth: boolean;
  readonly metricsPort: number | undefined;
  readonly checkpointIntervalMs: number;
  readonly operatorToken: string | undefined;
  readonly logLevel: string;
  /** Verification worker threads (default: one per core; 0 = the core's own off-thread path). */
  readonly verifyThreads: number | undefined;
  /** Nice value of the verification threads (default 10). */
  readonly verifyNice: number | undefined;
  /** Origins whose pages may read the pool node's GET routes (browser wallets); default none. */
  readonly poolCorsOrigins: readonly string[] | '*' | undefined;
}

/** A command line or environment that cannot be used. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const START_USAGE = `usage: priv-stark start [options]

  --port N                    facilitator listener port (PORT, 4020)
  --host H                    listen address (HOST, 127.0.0.1)
  --pool-port N               devnet pool node port (POOL_PORT, 4021)
  --no-pool-node              do not run the pool node (extra instances on one PostgreSQL)
  --pool-cors ORIGINS         browser wallets on these origins (comma-separated, or *) may read
                              the pool node's GET routes (POOL_CORS_ORIGINS; default none)
  --data-dir DIR              embedded SQLite store (DATA_DIR, ./data)
  --database-url URL          PostgreSQL instead of SQLite (DATABASE_URL)
  --config FILE               keys with policies, limits, network (CONFIG)
  --insecure-no-auth          no API keys; refused unless the host is loopback
  --metrics-port N            Prometheus listener, off when unset (METRICS_PORT)
  --checkpoint-interval-ms N  checkpoint cadence (CHECKPOINT_INTERVAL_MS, 2000)
  --log-level L               pino level (LOG_LEVEL, info)

  Proofs are verified on VERIFY_THREADS worker threads (one per core) at nice VERIFY_NICE (10),
  so verification never starves the event loop; VERIFY_THREADS=0 uses the core's own threads.

  API keys come from API_KEYS (comma-separated) and the CONFIG file; the pool operator's deposit
  token from POOL_OPERATOR_TOKEN. Without them, both are generated on first start, printed once and
  kept in the data directory (api-key, operator-token; mode 0600).`;

function integer(text: string | undefined, name: string, fallback: number, min = 0, max = 65_535): number {
  if (text === undefined || text === '') return fallback;
  if (!/^[0-9]{1,10}$/.test(text) || Number(text) < min || Number(text) > max) throw new UsageError(`${name} expected an integer in ${min}..${max}`);
  return Number(text);
}

/** Reads flags (which win) and the environment. */
export function startConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): StartConfig {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'pool-port': { type: 'string' },
        'no-pool-node': { type: 'boolean' },
        'pool-cors': { type: 'string' },
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
        config: { type: 'string' },
        'insecure-no-auth': { type: 'boolean' },
        'metrics-port': { type: 'string' },
        'checkpoint-interval-ms': { type: 'string' },
        'log-level': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const str = (flag: string, name: string): string | undefined => (values[flag] as string | undefined) ?? (env[name] || undefined);
  const metrics = str('metrics-port', 'METRICS_PORT');
  return {
    port: integer(str('port', 'PORT'), 'PORT', 4020),
    host: str('host', 'HOST') ?? '127.0.0.1',
    poolPort: integer(str('pool-port', 'POOL_PORT'), 'POOL_PORT', 4021),
    poolNode: values['no-pool-node'] !== true,
    dataDir: str('data-dir', 'DATA_DIR') ?? './data',
    databaseUrl: str('database-url', 'DATABASE_URL'),
    apiKeys: env.API_KEYS || undefined,
    configPath: str('config', 'CONFIG'),
    insecureNoAuth: values['insecure-no-auth'] === true,
    metricsPort: metrics === undefined ? undefined : integer(metrics, 'METRICS_PORT', 0),
    checkpointIntervalMs: integer(str('checkpoint-interval-ms', 'CHECKPOINT_INTERVAL_MS'), 'CHECKPOINT_INTERVAL_MS', 2000, 10, 3_600_000),
    operatorToken: env.POOL_OPERATOR_TOKEN || undefined,
    logLevel: str('log-level', 'LOG_LEVEL') ?? 'info',
    verifyThreads: env.VERIFY_THREADS ? integer(env.VERIFY_THREADS, 'VERIFY_THREADS', 0, 0, 64) : undefined,
    verifyNice: env.VERIFY_NICE ? integer(env.VERIFY_NICE, 'VERIFY_NICE', 10, 0, 19) : undefined,
    poolCorsOrigins: parseCorsOrigins(str('pool-cors', 'POOL_CORS_ORIGINS')),
  };
}

/** A running facilitator. */
export interface RunningFacilitator {
  /** Base URL of the facilitator listener. */
  readonly url: string;
  readonly poolNodeUrl: string | null;
  readonly metricsUrl: string | null;
  /** Graceful shutdown (idempotent). */
  close(): Promise<void>;
}

/**
 * The devnet API key when none is configured: kept in the data directory (`api-key`, mode 0600),
 * generated on first start and printed that once.
 */
function devnetApiKey(dataDir: string): { key: string; generated: boolean; file: string } {
  const file = join(resolve(dataDir), 'api-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), generated: false, file };
  const key = randomBytes(32).toString('base64url');
  mkdirSync(resolve(dataDir), { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return { key, generated: true, file };
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function addressPort(server: { address(): unknown }): number {
  const address = server.address();
  return typeof address === 'object' && address !== null && 'port' in address ? Number(address.port) : 0;
}

/**
 * Starts the facilitator (and the pool node) and returns once listening.
 * @param say where the generated secrets and the start line go (default stderr)
 * @throws UsageError, ConfigError, or the store's / core's error when they cannot be opened
 */
export async function startFacilitator(config: StartConfig, say: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<RunningFacilitator> {
  if (config.insecureNoAuth && !isLoopbackHost(config.host)) throw new UsageError('--insecure-no-auth is refused unless the host is loopback');
  const access = loadAccessConfig({ apiKeys: config.apiKeys, configPath: config.configPath });
  const network = access.networks?.[0] ?? DEVNET_NETWORK;
  const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

  let auth: AuthMode;
  if (config.insecureNoAuth) {
    auth = { mode: 'off' };
  } else if (access.keys.length > 0) {
    auth = { mode: 'keys', keys: new ApiKeys(access.keys) };
  } else {
    const { key, generated, file } = devnetApiKey(config.dataDir);
    if (generated) say(`priv-stark start: no API key configured; generated one (shown once; kept in ${file}; set API_KEYS or CONFIG to choose your own):\n${key}`);
    auth = { mode: 'keys', keys: new ApiKeys([{ id: 'generated', sha256: hashKey(key), policy: access.defaultRateLimit ? { rateLimit: access.defaultRateLimit } : {} }]) };
  }

  const core = await loadCore();
  const store = await openStore(core, { databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const closers: (() => Promise<unknown>)[] = [() => store.close()];
  const cleanup = async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  };
  try {
    // Proofs are verified on niced worker threads, by the facilitator and by the pool alike
    // (VERIFY_THREADS=0: on the core's own off-thread path instead).
    const verifier =
      config.verifyThreads === 0
        ? null
        : await VerifierThreads.start({ backend: core.backend, size: config.verifyThreads, nice: config.verifyNice }).catch((error: unknown) => {
            say(`priv-stark start: verification workers did not start (${error instanceof Error ? error.message : String(error)}); verifying on the core's own threads`);
            return null;
          });
    if (verifier) closers.push(() => verifier.close());
    const verify = verifier?.verify ?? core.verifySpend;
    const pool = new Ledger({
      core: { ...core, verifySpend: verify },
      store,
      scheme: SCHEME,
      network: network.network,
      asset: network.asset,
      checkpointIntervalMs: config.checkpointIntervalMs,
      onTimerError: (error) => say(`priv-stark start: checkpoint failed: ${error instanceof Error ? error.message : String(error)}`),
    });
    closers.push(() => pool.stop());

    let rateLimitStore;
    if (config.databaseUrl) {
      const limiterPool = new pg.Pool({ connectionString: config.databaseUrl, max: 4 });
      limiterPool.on('error', () => undefined);
      closers.push(() => limiterPool.end());
      rateLimitStore = await postgresRateLimitStore(limiterPool);
    }

    const facilitator = new Facilitator({ core, ledger: pool, networks: [network], verify });
    const metrics = config.metricsPort === undefined ? undefined : new FacilitatorMetrics({ backend: core.backend, pool });
    const app = await build({
      facilitator,
      auth,
      rateLimitStore,
      metrics,
      logger: { level: config.logLevel },
      health: { version, backend: core.backend, networks: [network], pool: { kind: store.kind, state: () => pool.state() } },
    });
    closers.push(() => app.close());
    pool.start();
    if (auth.mode === 'off') app.log.warn('auth is OFF (--insecure-no-auth): anyone who can reach this loopback listener may verify and settle');

    await app.listen({ port: config.port, host: config.host });
    const url = urlOf(config.host, addressPort(app.server));

    let poolNodeUrl: string | null = null;
    if (config.poolNode) {
      const token = resolveOperatorToken({ token: config.operatorToken, dataDir: config.dataDir });
      if (token.generated) say(`priv-stark start: generated the pool operator token (shown once; kept in ${token.file}):\n${token.token}`);
      const node = await buildPoolNode({ ledger: pool, operatorToken: token.token, logger: { level: config.logLevel }, corsOrigins: config.poolCorsOrigins });
      closers.push(() => node.close());
      await node.listen({ port: config.poolPort, host: config.host });
      poolNodeUrl = urlOf(config.host, addressPort(node.server));
    }

    let metricsUrl: string | null = null;
    if (metrics && config.metricsPort !== undefined) {
      const server: Server = await listenMetrics(metrics.registry, config.metricsPort, config.host);
      closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      metricsUrl = `${urlOf(config.host, addressPort(server))}/metrics`;
    }

    app.log.info(
      { url, poolNode: poolNodeUrl, metrics: metricsUrl, store: store.kind, backend: core.backend, network: network.network },
      'Facilitator listening',
    );
    let closing: Promise<void> | null = null;
    return {
      url,
      poolNodeUrl,
      metricsUrl,
      close: () => {
        closing ??= cleanup();
        return closing;
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * The `start` command: runs until SIGTERM or SIGINT.
 * @returns the exit code
 */
export async function runStart(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${START_USAGE}\n`);
    return 0;
  }
  let running: RunningFacilitator;
  try {
    running = await startFacilitator(startConfig(argv));
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`priv-stark start: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.stderr.write(`${signal}: shutting down\n`);
      running.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
