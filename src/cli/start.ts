/**
 * @module `priv-stark start` (the default of `npm start`): flags and environment (flags win) into
 * a {@link ServiceConfig}, then the service (`src/service`): the facilitator listener and the
 * pool node over one ledger — the devnet pool, or a pool backed by an escrow on a chain
 * (`chain-flags.ts`). SIGTERM / SIGINT shut down gracefully.
 */

import { parseArgs } from 'node:util';

import { ConfigError } from '../http/index.js';
import { parseCorsOrigins } from '../pool-node/index.js';
import {
  type RunningService,
  SERVICE_DEFAULTS,
  type ServiceConfig,
  ServiceConfigError,
  defaultWorkerCount,
  MAX_WORKERS,
  type RunningWorkers,
  startService,
  startWorkers,
} from '../service/index.js';
import { CHAIN_FLAGS_USAGE, CHAIN_OPTIONS, chainConfig } from './chain-flags.js';
import { EPOCH_FLAGS_USAGE, EPOCH_OPTIONS, epochGridConfig } from './epoch-flags.js';
import { UsageError } from './usage-error.js';

export { UsageError };

export const START_USAGE = `usage: priv-stark start [options]

  --port N                    facilitator listener port (PORT, 4020)
  --host H                    listen address (HOST, 127.0.0.1)
  --workers N                 processes serving both listeners (WORKERS; one per core, at most
                              16; a chain pool: 1); the primary process writes the SQLite store
                              and runs the checkpoint timer
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
${EPOCH_FLAGS_USAGE}
  --log-level L               pino level (LOG_LEVEL, info)
  --proof-store-max N         handed-over proofs kept at once, compact payments (PROOF_STORE_MAX,
                              10000; about 62 KB each)
  --handover-rate-limit N     hand-overs per minute and client address at the pool node
                              (HANDOVER_RATE_LIMIT, 120)
  --proof-retention-days N    days the pool node keeps each settled proof in its public archive
                              (PROOF_RETENTION_DAYS, 30; about 82 KB a payment: docs/audit.md)
  --parameter-sets IDS        proof parameter sets to accept, comma-separated
                              (PROOF_PARAMETER_SETS; default 3,2: drop 2 once no payment proved
                              by an older release can be in flight)
  --transition-parameter-sets IDS
                              transition parameter sets the pool node accepts (TRANSITION_PARAMETER_SETS;
                              default 17,16: drop 16 once no older wallet's transition can be in flight)
${CHAIN_FLAGS_USAGE}

  Proofs are verified on VERIFY_THREADS worker threads (one per core) at nice VERIFY_NICE (10),
  so verification never starves the event loop; VERIFY_THREADS=0 uses the core's own threads.

  API keys come from API_KEYS (comma-separated) and the CONFIG file; the pool operator's deposit
  token from POOL_OPERATOR_TOKEN. Without them, both are generated on first start, printed once and
  kept in the data directory (api-key, operator-token; mode 0600).

  OpenTelemetry traces are off unless OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) or
  OTEL_TRACES_EXPORTER is set; the other OTEL_* variables apply (docs/operations.md). Spans carry
  no client address, query, header or payment value.`;

function integer(
  text: string | undefined,
  name: string,
  fallback: number,
  min = 0,
  max = 65_535,
): number {
  if (text === undefined || text === '') return fallback;
  if (!/^[0-9]{1,10}$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`${name} expected an integer in ${min}..${max}`);
  return Number(text);
}

/** Reads flags (which win) and the environment. */
export function startConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): ServiceConfig {
  return startPlan(argv, env).config;
}

/** What `start` runs: the service's configuration and how many worker processes run it. */
export interface StartPlan {
  readonly config: ServiceConfig;
  /** 1: the service in this process; more: a primary and that many workers (`service/workers.ts`). */
  readonly workers: number;
}

/** Reads flags (which win) and the environment into a {@link StartPlan}. */
export function startPlan(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): StartPlan {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        workers: { type: 'string' },
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
        'proof-store-max': { type: 'string' },
        'proof-retention-days': { type: 'string' },
        'handover-rate-limit': { type: 'string' },
        'parameter-sets': { type: 'string' },
        'transition-parameter-sets': { type: 'string' },
        ...EPOCH_OPTIONS,
        ...CHAIN_OPTIONS,
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const str = (flag: string, name: string): string | undefined =>
    (values[flag] as string | undefined) ?? (env[name] || undefined);
  const metrics = str('metrics-port', 'METRICS_PORT');
  const d = SERVICE_DEFAULTS;
  const config: ServiceConfig = {
    facilitator: true,
    port: integer(str('port', 'PORT'), 'PORT', d.port),
    host: str('host', 'HOST') ?? d.host,
    poolPort: integer(str('pool-port', 'POOL_PORT'), 'POOL_PORT', d.poolPort),
    poolNode: values['no-pool-node'] !== true,
    dataDir: str('data-dir', 'DATA_DIR') ?? d.dataDir,
    databaseUrl: str('database-url', 'DATABASE_URL'),
    apiKeys: env.API_KEYS || undefined,
    configPath: str('config', 'CONFIG'),
    insecureNoAuth: values['insecure-no-auth'] === true,
    metricsPort: metrics === undefined ? undefined : integer(metrics, 'METRICS_PORT', 0),
    checkpointIntervalMs: integer(
      str('checkpoint-interval-ms', 'CHECKPOINT_INTERVAL_MS'),
      'CHECKPOINT_INTERVAL_MS',
      d.checkpointIntervalMs,
      10,
      3_600_000,
    ),
    epoch: epochGridConfig(values, env),
    operatorToken: env.POOL_OPERATOR_TOKEN || undefined,
    logLevel: str('log-level', 'LOG_LEVEL') ?? d.logLevel,
    verifyThreads: env.VERIFY_THREADS
      ? integer(env.VERIFY_THREADS, 'VERIFY_THREADS', 0, 0, 64)
      : undefined,
    verifyNice: env.VERIFY_NICE ? integer(env.VERIFY_NICE, 'VERIFY_NICE', 10, 0, 19) : undefined,
    proofStoreCapacity: integer(
      str('proof-store-max', 'PROOF_STORE_MAX'),
      'PROOF_STORE_MAX',
      d.proofStoreCapacity,
      1,
      10_000_000,
    ),
    handOverRateLimit: {
      max: integer(
        str('handover-rate-limit', 'HANDOVER_RATE_LIMIT'),
        'HANDOVER_RATE_LIMIT',
        d.handOverRateLimit.max,
        1,
        10_000_000,
      ),
      timeWindowMs: 60_000,
    },
    proofRetentionDays: integer(
      str('proof-retention-days', 'PROOF_RETENTION_DAYS'),
      'PROOF_RETENTION_DAYS',
      d.proofRetentionDays,
      1,
      36_500,
    ),
    poolCorsOrigins: parseCorsOrigins(str('pool-cors', 'POOL_CORS_ORIGINS')),
    parameterSets: parameterSetList(str('parameter-sets', 'PROOF_PARAMETER_SETS')),
    transitionParameterSets: parameterSetList(
      str('transition-parameter-sets', 'TRANSITION_PARAMETER_SETS'),
      'TRANSITION_PARAMETER_SETS',
    ),
    chain: chainConfig(values, env),
  };
  // A chain pool's keys are held by one process: it runs in one unless told otherwise (and then
  // the service refuses with the reason).
  const workers = integer(
    str('workers', 'WORKERS'),
    'WORKERS',
    config.chain ? 1 : defaultWorkerCount(),
    1,
    MAX_WORKERS,
  );
  return { config, workers };
}

/**
 * `PROOF_PARAMETER_SETS` (or `name`): comma-separated set ids, undefined when unset. Whether the
 * core knows each id is the service's check.
 */
export function parameterSetList(
  text: string | undefined,
  name = 'PROOF_PARAMETER_SETS',
): readonly number[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const ids = text.split(',').map((part) => part.trim());
  if (ids.some((id) => !/^[0-9]{1,3}$/.test(id) || Number(id) > 255))
    throw new UsageError(`${name} expected comma-separated set ids (0..255)`);
  return ids.map(Number);
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
  // Listened for before the start: a worker may answer while the others still start, and a
  // signal then must still stop the service gracefully (once it has started), not kill it.
  let signalled: NodeJS.Signals | null = null;
  let onSignal = (signal: NodeJS.Signals) => {
    signalled = signal;
  };
  const listener = (signal: NodeJS.Signals) => onSignal(signal);
  process.once('SIGTERM', listener);
  process.once('SIGINT', listener);
  let running: RunningService | RunningWorkers;
  try {
    const plan = startPlan(argv);
    running =
      plan.workers > 1
        ? await startWorkers(plan.config, plan.workers)
        : await startService(plan.config);
  } catch (error) {
    process.off('SIGTERM', listener);
    process.off('SIGINT', listener);
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof ServiceConfigError
    ) {
      process.stderr.write(`priv-stark start: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const service = running;
  return new Promise((resolve) => {
    onSignal = (signal: NodeJS.Signals) => {
      process.stderr.write(`${signal}: shutting down\n`);
      service.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    if (signalled) onSignal(signalled);
    if ('stopped' in service) void service.stopped.then(resolve);
  });
}
