/**
 * @module `priv-stark pool …` and `priv-stark deposit`: the devnet pool node and the operator's
 * deposit command.
 */

import { parseArgs } from 'node:util';

import {
  findOperatorToken,
  parseCorsOrigins,
  PoolNodeClient,
  PoolNodeError,
} from '../pool-node/index.js';
import { ConfigError } from '../http/index.js';
import {
  type RunningService,
  SERVICE_DEFAULTS,
  ServiceConfigError,
  startService,
} from '../service/index.js';
import { CHAIN_OPTIONS, chainConfig } from './chain-flags.js';
import { EPOCH_OPTIONS, epochGridConfig } from './epoch-flags.js';
import { parameterSetList } from './start.js';
import { UsageError } from './usage-error.js';

export const POOL_USAGE = `  pool serve [--host H] [--port N] [--data-dir D] [--database-url URL] [--checkpoint-interval-ms N] [--cors ORIGINS]
                    run the devnet pool node (POOL_HOST, POOL_PORT, DATA_DIR, DATABASE_URL, CHECKPOINT_INTERVAL_MS,
                    POOL_OPERATOR_TOKEN, POOL_CORS_ORIGINS; defaults 127.0.0.1, 4021, ./data, SQLite, 2000, generated
                    once, no CORS); --cors lets browser wallets on those origins (comma-separated, or *) read its GET routes
                    and hand proofs over; --proof-store-max N (PROOF_STORE_MAX, 10000) handed-over proofs kept at once;
                    --handover-rate-limit N (HANDOVER_RATE_LIMIT, 120) hand-overs per minute and client address;
                    --proof-retention-days N (PROOF_RETENTION_DAYS, 30) days each settled proof stays in the archive;
                    --parameter-sets IDS (PROOF_PARAMETER_SETS, 3,2) proof parameter sets the hand-over accepts;
                    --transition-parameter-sets IDS (TRANSITION_PARAMETER_SETS, 17,16) transition sets it accepts;
                    --epoch-ms N (EPOCH_MS, 60000; 1: no grid) one checkpoint per epoch boundary, anchored to
                    once --anchor-delay-ms N (ANCHOR_DELAY_MS, 10000) old;
                    a pool backed by an escrow on a chain: --chain-rpc URL --escrow ADDRESS --operator-key-file FILE
                    [--confirmations N|safe|finalized] [--deny-list FILE] [--chain-id N] [--token ADDRESS]
                    [--deploy-block N] (CHAIN_RPC_URL, ESCROW_ADDRESS, OPERATOR_KEY_FILE or OPERATOR_KEY,
                    CHAIN_CONFIRMATIONS, DENY_LIST, CHAIN_ID, TOKEN_ADDRESS, ESCROW_DEPLOY_BLOCK; start --help)
  pool state [--url URL]
                    the pool's head: size, root, latest checkpoint, deposited, withdrawn, paid-out and
                    refunded totals
  pool withdrawals [--after ID] [--url URL] [--token T] [--data-dir D]
                    exits to pay out, oldest first, with their payout status (operator token)
  pool payout <withdrawal id> paying|paid|failed [--url URL] [--token T] [--data-dir D]
                    records a payout step: paying before paying, then paid, or failed (the owner gets
                    the exit's refund note back); the withdrawal id is the payment's idempotency key;
                    a pool backed by a chain refuses steps by hand (chain_payouts_only): its payout sender records them
  pool attest [--json] [--url URL] [--token T] [--data-dir D]
                    has a chain pool's node post the attestation of its latest checkpoint to the escrow
                    now, with its attester key (--operator-key-file attester=FILE): checkpoint, root,
                    log digest, totals and the unpaid withdrawals' root; exit 1 when refused (no_attester,
                    attestation_failed), 0 when posted or already attested
  deposit --amount N --pre 0x… [--url URL] [--token T] [--data-dir D]
                    shield N atomic units to a precommitment H_PRE(owner, rho) (operator token required)`;

function integer(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  if (!/^[0-9]{1,9}$/.test(text))
    throw new RangeError(`${name} expected a positive integer, got ${text.slice(0, 20)}`);
  return Number(text);
}

/** `--proof-retention-days`: whole days, at least one (a proof is kept at least a day). */
function retentionDays(text: string | undefined): number {
  const days = integer(text, 'proof retention days', SERVICE_DEFAULTS.proofRetentionDays);
  if (days < 1) throw new UsageError('proof retention days expected at least 1');
  return days;
}

function defaultUrl(): string {
  return process.env.POOL_URL ?? `http://127.0.0.1:${process.env.POOL_PORT ?? '4021'}`;
}

async function serve(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      'checkpoint-interval-ms': { type: 'string' },
      'log-level': { type: 'string' },
      cors: { type: 'string' },
      'proof-store-max': { type: 'string' },
      'proof-retention-days': { type: 'string' },
      'handover-rate-limit': { type: 'string' },
      'parameter-sets': { type: 'string' },
      'transition-parameter-sets': { type: 'string' },
      ...EPOCH_OPTIONS,
      ...CHAIN_OPTIONS,
    },
    strict: true,
  });
  const env = process.env;
  let service: RunningService;
  try {
    service = await startService(serveConfig(values, env));
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof ServiceConfigError
    ) {
      process.stderr.write(`priv-stark pool serve: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await service.close();
  return 0;
}

/** `pool serve`'s flags and environment as a service configuration. */
function serveConfig(
  values: Record<string, string | boolean | string[] | undefined>,
  env: NodeJS.ProcessEnv,
): Parameters<typeof startService>[0] {
  const d = SERVICE_DEFAULTS;
  const v = values as Record<string, string | undefined>;
  return {
    ...d,
    facilitator: false,
    poolNode: true,
    host: v.host ?? env.POOL_HOST ?? d.host,
    poolPort: integer(v.port ?? env.POOL_PORT, 'port', d.poolPort),
    poolCorsOrigins: parseCorsOrigins(v.cors ?? env.POOL_CORS_ORIGINS),
    dataDir: v['data-dir'] ?? env.DATA_DIR ?? d.dataDir,
    databaseUrl: v['database-url'] ?? env.DATABASE_URL,
    checkpointIntervalMs: integer(
      v['checkpoint-interval-ms'] ?? env.CHECKPOINT_INTERVAL_MS,
      'checkpoint interval',
      d.checkpointIntervalMs,
    ),
    epoch: epochGridConfig(values, env),
    operatorToken: env.POOL_OPERATOR_TOKEN || undefined,
    logLevel: v['log-level'] ?? env.LOG_LEVEL ?? d.logLevel,
    proofStoreCapacity: integer(
      v['proof-store-max'] ?? env.PROOF_STORE_MAX,
      'proof store max',
      d.proofStoreCapacity,
    ),
    handOverRateLimit: {
      max: integer(
        v['handover-rate-limit'] ?? env.HANDOVER_RATE_LIMIT,
        'hand-over rate limit',
        d.handOverRateLimit.max,
      ),
      timeWindowMs: 60_000,
    },
    proofRetentionDays: retentionDays(v['proof-retention-days'] ?? env.PROOF_RETENTION_DAYS),
    parameterSets: parameterSetList(v['parameter-sets'] ?? env.PROOF_PARAMETER_SETS),
    transitionParameterSets: parameterSetList(
      v['transition-parameter-sets'] ?? env.TRANSITION_PARAMETER_SETS,
      'TRANSITION_PARAMETER_SETS',
    ),
    chain: chainConfig(values, env),
  };
}

async function state(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { url: { type: 'string' } }, strict: true });
  const client = new PoolNodeClient(values.url ?? defaultUrl());
  process.stdout.write(`${JSON.stringify(await client.state(), null, 2)}\n`);
  return 0;
}

/** The operator token from `--token`, `POOL_OPERATOR_TOKEN` or the pool's data directory. */
function operatorToken(values: { token?: string; 'data-dir'?: string }): string | null {
  return (
    findOperatorToken({
      token: values.token ?? process.env.POOL_OPERATOR_TOKEN,
      dataDir: values['data-dir'] ?? process.env.DATA_DIR ?? './data',
    }) ?? null
  );
}

const OPERATOR_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

async function withdrawals(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { ...OPERATOR_OPTIONS, after: { type: 'string' } },
    strict: true,
  });
  const token = operatorToken(values);
  if (!token) {
    process.stderr.write(
      'pool withdrawals: no operator token (--token, POOL_OPERATOR_TOKEN, --data-dir)\n',
    );
    return 2;
  }
  const client = new PoolNodeClient(values.url ?? defaultUrl(), { token });
  const page = await client.withdrawals(integer(values.after, '--after', 0));
  process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
  return 0;
}

async function payout(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: OPERATOR_OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  const [id, status] = positionals;
  if (!id || (status !== 'paying' && status !== 'paid' && status !== 'failed')) {
    process.stderr.write(
      `pool payout needs <withdrawal id> paying|paid|failed\nusage:\n${POOL_USAGE}\n`,
    );
    return 2;
  }
  const token = operatorToken(values);
  if (!token) {
    process.stderr.write(
      'pool payout: no operator token (--token, POOL_OPERATOR_TOKEN, --data-dir)\n',
    );
    return 2;
  }
  try {
    const result = await new PoolNodeClient(values.url ?? defaultUrl(), { token }).payout(
      id,
      status,
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof PoolNodeError) {
      process.stderr.write(`payout refused: ${error.code}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

async function attest(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { ...OPERATOR_OPTIONS, json: { type: 'boolean' } },
    strict: true,
  });
  const token = operatorToken(values);
  if (!token) {
    process.stderr.write(
      'pool attest: no operator token (--token, POOL_OPERATOR_TOKEN, --data-dir)\n',
    );
    return 2;
  }
  try {
    const report = await new PoolNodeClient(values.url ?? defaultUrl(), { token }).attest();
    if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
    else if (report.outcome === 'no_checkpoint')
      process.stdout.write('no checkpoint yet: nothing to attest\n');
    else
      process.stdout.write(
        `${report.outcome === 'attested' ? `attested checkpoint ${report.seq} in ${report.tx} (block ${report.block}, ${report.gasUsed} gas)` : `checkpoint ${report.seq} is attested already`}\n` +
          `  root ${report.root}\n  log digest ${report.logDigest}\n  unpaid root ${report.unpaidRoot} (${report.unpaid} withdrawals)\n` +
          `  totals: deposited ${report.totals?.deposited}, withdrawn ${report.totals?.withdrawn}, paid out ${report.totals?.paidOut}, refunded ${report.totals?.refunded}\n`,
      );
    return 0;
  } catch (error) {
    if (error instanceof PoolNodeError && error.code !== 'pool_unreachable') {
      if (values.json)
        process.stdout.write(`${JSON.stringify({ error: error.code, message: error.message })}\n`);
      process.stderr.write(`attestation refused: ${error.code}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** `priv-stark pool <subcommand>`. */
export async function poolCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'serve':
      return serve(rest);
    case 'state':
      return state(rest);
    case 'withdrawals':
      return withdrawals(rest);
    case 'payout':
      return payout(rest);
    case 'attest':
      return attest(rest);
    default:
      process.stderr.write(
        `unknown pool command: ${(sub ?? '').slice(0, 40)}\nusage:\n${POOL_USAGE}\n`,
      );
      return 2;
  }
}

/** `priv-stark deposit`. */
export async function depositCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      amount: { type: 'string' },
      pre: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      'data-dir': { type: 'string' },
    },
    strict: true,
  });
  if (!values.amount || !values.pre) {
    process.stderr.write(`deposit needs --amount and --pre\nusage:\n${POOL_USAGE}\n`);
    return 2;
  }
  const token = findOperatorToken({
    token: values.token ?? process.env.POOL_OPERATOR_TOKEN,
    dataDir: values['data-dir'] ?? process.env.DATA_DIR ?? './data',
  });
  if (!token) {
    process.stderr.write(
      'deposit: no operator token (--token, POOL_OPERATOR_TOKEN, or the data directory of the pool node)\n',
    );
    return 2;
  }
  try {
    const result = await new PoolNodeClient(values.url ?? defaultUrl(), { token }).deposit(
      values.amount,
      values.pre,
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof PoolNodeError) {
      process.stderr.write(`deposit refused: ${error.code}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
