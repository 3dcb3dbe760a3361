/**
 * @module The chain flags of `priv-stark start` and `priv-stark pool serve` (flags win over the
 * environment): a pool backed by an escrow needs `--chain-rpc` and `--escrow`; the rest refine it.
 * Parsing checks shapes only, without loading viem — the service checks the chain itself (an
 * address's checksum included), and the key files are read there, by the pool node's instance
 * alone.
 */

import { type Finality, parseFinality } from '../chain/finality.js';
import type { ChainServiceConfig } from '../service/index.js';
import { UsageError } from './usage-error.js';

/** The flags, for `parseArgs`. */
export const CHAIN_OPTIONS = {
  'chain-rpc': { type: 'string' },
  escrow: { type: 'string' },
  'operator-key-file': { type: 'string', multiple: true },
  confirmations: { type: 'string' },
  'deny-list': { type: 'string' },
  'chain-id': { type: 'string' },
  token: { type: 'string' },
  'deploy-block': { type: 'string' },
  'relayer-fee': { type: 'string' },
  'attest-interval-ms': { type: 'string' },
} as const;

/** The chain flags' lines of a usage text. */
export const CHAIN_FLAGS_USAGE = `  --chain-rpc URL             back the pool with an escrow on an EVM chain, through this JSON-RPC
                              endpoint (CHAIN_RPC_URL); needs --escrow
  --escrow ADDRESS            the escrow contract (ESCROW_ADDRESS)
  --operator-key-file FILE    the pool node's hot key(s): FILE for every role, or role=FILE
                              (acceptor, payout, relayer, attester), repeatable (OPERATOR_KEY_FILE,
                              comma-separated; or the key in OPERATOR_KEY); mode 0600 or stricter
  --confirmations N           when an acceptance is final: N confirmations, safe or finalized
                              (CHAIN_CONFIRMATIONS, 10)
  --deny-list FILE            depositors whose deposits are declined, one address a line (DENY_LIST)
  --chain-id N                refuse an RPC serving another chain (CHAIN_ID)
  --token ADDRESS             refuse an escrow holding another token (TOKEN_ADDRESS)
  --deploy-block N            the escrow's deployment block (ESCROW_DEPLOY_BLOCK; found on chain
                              otherwise)
  --relayer-fee N             atomic units the relayer key takes per gasless deposit it relays
                              (RELAYER_FEE, 0)
  --attest-interval-ms N      how often the attester key posts the latest checkpoint's attestation
                              to the escrow (ATTEST_INTERVAL_MS, 3600000; 0: only when asked,
                              priv-stark pool attest)`;

type Values = Record<string, string | boolean | string[] | undefined>;

function text(values: Values, flag: string, env: string | undefined): string | undefined {
  const value = values[flag];
  return typeof value === 'string' ? value : env || undefined;
}

function whole(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,16}$/.test(value) || Number(value) > max)
    throw new UsageError(`${name} expected an integer in 0..${max}`);
  return Number(value);
}

function address(value: string | undefined, name: string): string | undefined {
  if (value !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(value))
    throw new UsageError(`${name} expected an address (0x and 40 hex digits)`);
  return value;
}

function rpcUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('--chain-rpc expected an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('--chain-rpc expected an http(s) URL');
  return value;
}

/** `--relayer-fee`: decimal atomic units (0 when unset). */
function relayerFee(value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^(0|[1-9][0-9]{0,17})$/.test(value))
    throw new UsageError('--relayer-fee expected atomic units, an integer below 10^18');
  return BigInt(value);
}

/**
 * The chain configuration the flags and environment give, or `undefined` for the devnet pool.
 * @throws UsageError for a value of the wrong shape, or chain flags without `--chain-rpc` and `--escrow`
 */
export function chainConfig(
  values: Values,
  env: NodeJS.ProcessEnv,
): ChainServiceConfig | undefined {
  const rpc = text(values, 'chain-rpc', env.CHAIN_RPC_URL);
  const escrow = address(text(values, 'escrow', env.ESCROW_ADDRESS), '--escrow');
  const files = values['operator-key-file'];
  const keyFiles = Array.isArray(files)
    ? files
    : (env.OPERATOR_KEY_FILE?.split(',')
        .map((f) => f.trim())
        .filter(Boolean) ?? []);
  const refinements = [
    'confirmations',
    'deny-list',
    'chain-id',
    'token',
    'deploy-block',
    'relayer-fee',
    'attest-interval-ms',
  ];
  if (rpc === undefined && escrow === undefined) {
    if (Array.isArray(files) || refinements.some((flag) => values[flag] !== undefined))
      throw new UsageError('the chain flags need --chain-rpc and --escrow');
    return undefined;
  }
  if (rpc === undefined || escrow === undefined)
    throw new UsageError('a chain pool needs both --chain-rpc and --escrow');
  let finality: Finality;
  try {
    finality = parseFinality(text(values, 'confirmations', env.CHAIN_CONFIRMATIONS) ?? '10');
  } catch (error) {
    throw new UsageError(`--confirmations: ${(error as Error).message}`);
  }
  const minGas = env.CHAIN_MIN_GAS_BALANCE;
  if (minGas !== undefined && minGas !== '' && !/^[0-9]{1,30}$/.test(minGas))
    throw new UsageError('CHAIN_MIN_GAS_BALANCE expected wei, an integer');
  const chainId = whole(text(values, 'chain-id', env.CHAIN_ID), '--chain-id', 2 ** 53 - 1);
  if (chainId === 0) throw new UsageError('--chain-id expected a positive integer');
  return {
    rpcUrl: rpcUrl(rpc),
    escrow,
    chainId,
    token: address(text(values, 'token', env.TOKEN_ADDRESS), '--token'),
    deployBlock: whole(
      text(values, 'deploy-block', env.ESCROW_DEPLOY_BLOCK),
      '--deploy-block',
      2 ** 53 - 1,
    ),
    keyFiles,
    finality,
    denyList: text(values, 'deny-list', env.DENY_LIST),
    minGasBalance: minGas ? BigInt(minGas) : undefined,
    pollIntervalMs: whole(
      env.CHAIN_POLL_INTERVAL_MS || undefined,
      'CHAIN_POLL_INTERVAL_MS',
      3_600_000,
    ),
    watcherLeaseTtlMs: whole(
      env.CHAIN_WATCHER_LEASE_TTL_MS || undefined,
      'CHAIN_WATCHER_LEASE_TTL_MS',
      600_000,
    ),
    relayerFee: relayerFee(text(values, 'relayer-fee', env.RELAYER_FEE)),
    attestIntervalMs: whole(
      text(values, 'attest-interval-ms', env.ATTEST_INTERVAL_MS),
      '--attest-interval-ms',
      30 * 86_400_000,
    ),
  };
}
