/**
 * @module `priv-stark chain …`: the operator's commands on the chain that backs a pool.
 *
 *   chain deploy --rpc URL --key-file FILE [--token ADDRESS] [--confirmations N] [--reclaim-delay S]
 *                [--min-deposit X] [--payout-cap-per-day X] [--admin-delay S]
 *                [--acceptor ADDRESS] [--payout ADDRESS] [--pauser ADDRESS] [--attester ADDRESS]
 *                [--two-key-payouts]
 *   chain mint --rpc URL --token ADDRESS --to ADDRESS --amount X [--key-file FILE]
 *
 * Amounts are atomic units, or whole tokens with a decimal point (`token-amount.ts`). With `--json`
 * each prints one JSON line (amounts as integer strings). Exit codes: 0 done, 1 refused (a key
 * refused, minting off a local chain, no token named off one, a transaction reverted), 2 bad flags
 * or could not complete (the RPC did not answer). Errors are one line, never a stack trace.
 */

import { parseArgs } from 'node:util';

import type { Address } from 'viem';

import { CliFailure, type CliIo, stdio } from './cli-io.js';
import { AmountFlagError, isWholeTokens, parseTokenAmount } from './token-amount.js';

export const CHAIN_USAGE = `  chain deploy --rpc URL --key-file FILE [--token ADDRESS] [--confirmations N] [--reclaim-delay S]
               [--min-deposit X] [--payout-cap-per-day X] [--admin-delay S] [--acceptor|--payout|--pauser|--attester ADDRESS]
               [--two-key-payouts]
                    deploys the escrow (the deploying key is its admin; on chain 31337 without --token
                    also the test token) and grants the hot roles to the addresses given; prints
                    {"chainId","escrow","token","deployBlock","twoKeyPayouts"} (defaults: 1 confirmation, reclaim
                    delay 86400 s, minimum deposit 0.01, payout cap 10000.00 a day, admin delay 86400 s);
                    --two-key-payouts: every payout needs a proof under the latest attestation (for good)
  chain mint --rpc URL --token ADDRESS --to ADDRESS --amount X [--key-file FILE]
                    mints the test token (chain 31337 only; without --key-file as the token's owner
                    through the local node); amounts in atomic units, or whole tokens with a point
                    (10.00); --json: one JSON line`;

/** Defaults of `chain deploy`, in seconds and whole tokens. */
export const DEPLOY_DEFAULTS = {
  confirmations: 1,
  reclaimDelay: 86_400,
  adminDelay: 86_400,
  minDeposit: '0.01',
  payoutCapPerDay: '10000.00',
} as const;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A flag the command cannot use. */
class FlagError extends CliFailure {
  constructor(message: string) {
    super(2, message);
  }
}

function parseChainArgs(args: string[]) {
  return parseArgs({
    args,
    options: {
      rpc: { type: 'string' },
      'key-file': { type: 'string' },
      token: { type: 'string' },
      to: { type: 'string' },
      amount: { type: 'string' },
      confirmations: { type: 'string' },
      'reclaim-delay': { type: 'string' },
      'admin-delay': { type: 'string' },
      'min-deposit': { type: 'string' },
      'payout-cap-per-day': { type: 'string' },
      acceptor: { type: 'string' },
      payout: { type: 'string' },
      pauser: { type: 'string' },
      attester: { type: 'string' },
      'two-key-payouts': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    strict: true,
  }).values;
}

type ChainValues = ReturnType<typeof parseChainArgs>;

function addressFlag(flag: string, text: string | undefined): Address | undefined {
  if (text === undefined) return undefined;
  if (!ADDRESS.test(text)) throw new FlagError(`${flag} expects an address (0x and 40 hex digits)`);
  return text as Address;
}

function required<T>(flag: string, value: T | undefined): T {
  if (value === undefined) throw new FlagError(`${flag} is required`);
  return value;
}

function seconds(flag: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]{1,10}$/.test(text) || Number(text) > max)
    throw new FlagError(`${flag} expects whole seconds, at most ${max}`);
  return Number(text);
}

function rpcFlag(text: string | undefined): string {
  const rpc = required('--rpc', text);
  let url: URL;
  try {
    url = new URL(rpc);
  } catch {
    throw new FlagError('--rpc expects an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FlagError('--rpc expects an http(s) URL');
  return rpc;
}

/**
 * The `chain` command.
 * @returns the exit code: 0 done, 1 refused, 2 bad flags or could not complete
 */
export async function chainCommand(argv: string[], io: CliIo = stdio): Promise<number> {
  const [sub, ...rest] = argv;
  let values: ChainValues;
  try {
    values = parseChainArgs(rest);
  } catch (error) {
    io.err(`priv-stark chain: ${(error as Error).message.split('\n')[0]}\nusage:\n${CHAIN_USAGE}`);
    return 2;
  }
  try {
    if (sub === 'deploy') return await deploy(values, io);
    if (sub === 'mint') return await mint(values, io);
    io.err(`usage:\n${CHAIN_USAGE}`);
    return 2;
  } catch (error) {
    const failure = await failureOf(error);
    io.err(`priv-stark chain ${sub}: ${failure.message}`);
    return failure.exitCode;
  }
}

/** Any error as a one-line failure with its exit code (never a stack trace). */
async function failureOf(error: unknown): Promise<CliFailure> {
  if (error instanceof CliFailure) return error;
  if (error instanceof AmountFlagError) return new FlagError(error.message);
  const { KeyError } = await import('../chain/keys.js');
  const { DeployRefusal } = await import('../chain/deploy.js');
  if (error instanceof KeyError) return new CliFailure(1, `${error.code}: ${error.message}`);
  if (error instanceof DeployRefusal) return new CliFailure(1, `${error.code}: ${error.message}`);
  const { chainErrorOf } = await import('../chain/chain-errors.js');
  const chain = chainErrorOf(error, 'the chain');
  // A revert is the chain's refusal; no answer, or a malformed one, could not complete.
  const reverted = /revert/i.test(chain.message);
  return new CliFailure(
    reverted || chain.code === 'rpc_error' ? 1 : 2,
    `${chain.code}: ${chain.message}`,
  );
}

/** The token's decimals when an amount is in whole tokens (a local deployment's test token: 6). */
async function decimalsFor(
  texts: readonly (string | undefined)[],
  read: () => Promise<number>,
): Promise<number> {
  return texts.some((t) => t !== undefined && isWholeTokens(t)) ? read() : 0;
}

async function deploy(values: ChainValues, io: CliIo): Promise<number> {
  const rpc = rpcFlag(values.rpc);
  const keyFile = required('--key-file', values['key-file']);
  const token = addressFlag('--token', values.token);
  const roles = Object.fromEntries(
    (['acceptor', 'payout', 'pauser', 'attester'] as const)
      .map((role) => [role, addressFlag(`--${role}`, values[role])] as const)
      .filter(([, address]) => address !== undefined),
  );
  const confirmations = seconds('--confirmations', values.confirmations, 1, 1000);
  if (confirmations < 1) throw new FlagError('--confirmations expects at least 1');
  const reclaimDelay = seconds(
    '--reclaim-delay',
    values['reclaim-delay'],
    DEPLOY_DEFAULTS.reclaimDelay,
    30 * 86_400,
  );
  const adminDelay = seconds(
    '--admin-delay',
    values['admin-delay'],
    DEPLOY_DEFAULTS.adminDelay,
    2 ** 47,
  );
  const twoKeyPayouts = values['two-key-payouts'] === true;
  const minText = values['min-deposit'] ?? DEPLOY_DEFAULTS.minDeposit;
  const capText = values['payout-cap-per-day'] ?? DEPLOY_DEFAULTS.payoutCapPerDay;
  // The amounts' syntax before anything is read or sent.
  for (const [flag, text] of [
    ['--min-deposit', minText],
    ['--payout-cap-per-day', capText],
  ] as const)
    parseTokenAmount(flag, text, 36, 2n ** 200n);
  const { readKeyFile, isDevelopmentAddress, DEVELOPMENT_CHAIN_ID } = await import(
    '../chain/keys.js'
  );
  const { chainClients } = await import('../chain/rpc-client.js');
  const { deployEscrow, tokenDecimals, chainIdOf, requireContract } = await import(
    '../chain/deploy.js'
  );
  const deployer = readKeyFile(keyFile);
  const clients = chainClients(rpc);
  const chainId = await chainIdOf(clients);
  if (chainId !== DEVELOPMENT_CHAIN_ID && isDevelopmentAddress(deployer.address))
    throw new CliFailure(
      1,
      `key_development: the key in ${keyFile} is one of anvil's published development keys: refused on chain ${chainId}`,
    );
  if (token !== undefined) await requireContract(clients, token);
  const decimals = await decimalsFor([minText, capText], () =>
    token === undefined ? Promise.resolve(6) : tokenDecimals(clients, token),
  );
  const deployment = await deployEscrow({
    clients,
    deployer,
    token,
    roles,
    confirmations,
    parameters: {
      adminDelay,
      reclaimDelay: BigInt(reclaimDelay),
      minDeposit: parseTokenAmount('--min-deposit', minText, decimals),
      payoutCapPerDay: parseTokenAmount('--payout-cap-per-day', capText, decimals, 2n ** 200n),
      twoKeyPayouts,
    },
  });
  const line = {
    chainId: deployment.chainId,
    escrow: deployment.escrow,
    token: deployment.token,
    deployBlock: deployment.deployBlock,
    twoKeyPayouts,
  };
  if (values.json) io.out(JSON.stringify(line));
  else {
    io.out(`escrow ${line.escrow} on chain ${line.chainId}, deployed in block ${line.deployBlock}`);
    io.out(`token ${line.token}${token === undefined ? ' (the test token, deployed now)' : ''}`);
    if (twoKeyPayouts)
      io.out('two-key payouts: each payout needs a proof under the latest attestation');
    io.out(
      `pool node: priv-stark start --chain-rpc ${rpc} --escrow ${line.escrow} --operator-key-file FILE`,
    );
  }
  return 0;
}

async function mint(values: ChainValues, io: CliIo): Promise<number> {
  const rpc = rpcFlag(values.rpc);
  const token = required('--token', addressFlag('--token', values.token));
  const to = required('--to', addressFlag('--to', values.to));
  const amountText = required('--amount', values.amount);
  parseTokenAmount('--amount', amountText, 36, 2n ** 200n);
  const { readKeyFile, DEVELOPMENT_CHAIN_ID } = await import('../chain/keys.js');
  const { chainClients } = await import('../chain/rpc-client.js');
  const { mintTestToken, tokenDecimals, chainIdOf, requireContract } = await import(
    '../chain/deploy.js'
  );
  const minter = values['key-file'] === undefined ? undefined : readKeyFile(values['key-file']);
  const clients = chainClients(rpc);
  const chainId = await chainIdOf(clients);
  if (chainId !== DEVELOPMENT_CHAIN_ID)
    throw new CliFailure(
      1,
      `local_chain_only: minting is for the test token on a local chain (${DEVELOPMENT_CHAIN_ID}); this RPC serves chain ${chainId}`,
    );
  await requireContract(clients, token);
  const decimals = await decimalsFor([amountText], () => tokenDecimals(clients, token));
  const amount = parseTokenAmount('--amount', amountText, decimals, 2n ** 200n);
  const transaction = await mintTestToken({ clients, token, to, amount, minter });
  if (values.json) io.out(JSON.stringify({ token, to, amount: amount.toString(), transaction }));
  else io.out(`minted ${amount} atomic units of ${token} to ${to}: transaction ${transaction}`);
  return 0;
}
