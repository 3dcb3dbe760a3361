/**
 * @module The operator's hot keys: one private key per role the pool node signs for (acceptor,
 * payout, relayer — each its own nonce sequence), read from key files or, once, from the
 * `OPERATOR_KEY` environment variable. A key file any other user may read (or write) is refused; a
 * key taken from the environment is removed from it at once, so no child process inherits it. The
 * accounts handed out sign without exposing their key (viem's local accounts keep it in a
 * closure), so logging one prints its address only. On any chain but a local one (31337) the
 * well-known development keys of anvil and Hardhat are refused.
 */

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

import { type Hex, isAddressEqual } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

/** The roles a pool node holds a hot key for, each its own key and nonce sequence. */
export const HOT_ROLES = ['acceptor', 'payout', 'relayer', 'attester'] as const;

/** A hot role. */
export type HotRole = (typeof HOT_ROLES)[number];

/** The environment variable that may carry one key for every role (removed once read). */
export const OPERATOR_KEY_ENV = 'OPERATOR_KEY';

/** The chain id of a local development node, the one chain the development keys are allowed on. */
export const DEVELOPMENT_CHAIN_ID = 31337;

/** A key file is at most this long (a key is 64 hex digits, 66 characters with `0x`). */
export const MAX_KEY_FILE_BYTES = 1024;

/**
 * The accounts of the development mnemonic `test test … junk` that anvil and Hardhat fund by
 * default (indexes 0 to 9): their private keys are published, so funds behind them are anyone's.
 */
export const DEVELOPMENT_ADDRESSES: readonly Hex[] = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
  '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955',
  '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f',
  '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
];

/** Why a key could not be had. The message names the file or variable, never the key. */
export type KeyErrorCode =
  /** The file does not exist, is not a regular file, or could not be read. */
  | 'key_file_unreadable'
  /** The file grants group or others some access (it must be mode 0600 or stricter). */
  | 'key_file_exposed'
  /** The text is not one 32-byte hex private key on the secp256k1 curve. */
  | 'key_malformed'
  /** A `role=FILE` entry names no hot role, or names one twice. */
  | 'key_role_invalid'
  /** Both key files and `OPERATOR_KEY` were given: which one is meant cannot be told. */
  | 'key_source_conflict'
  /** A published development key on a chain other than the local one. */
  | 'key_development';

/** A key that could not be had, with a stable {@link KeyErrorCode}. */
export class KeyError extends Error {
  override readonly name = 'KeyError';
  constructor(
    readonly code: KeyErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A private key from text: 64 hex digits, `0x` optional, surrounding whitespace ignored.
 * @param where names the source in the error (a file, a variable), never the text
 * @throws KeyError `key_malformed`
 */
export function parsePrivateKey(text: string, where: string): Hex {
  const trimmed = text.trim();
  const hex = trimmed.startsWith('0x') || trimmed.startsWith('0X') ? trimmed.slice(2) : trimmed;
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new KeyError('key_malformed', `${where} does not hold one private key (64 hex digits)`);
  const key = `0x${hex.toLowerCase()}` as Hex;
  try {
    // Checks the scalar is in 1 .. n − 1.
    privateKeyToAccount(key);
  } catch {
    throw new KeyError('key_malformed', `${where} is not a valid secp256k1 private key`);
  }
  return key;
}

/**
 * Reads the key in `path` and returns its account. The file must be a regular file no other user
 * may access (checked on the open descriptor, so a file swapped meanwhile is not read).
 * @throws KeyError `key_file_unreadable`, `key_file_exposed`, `key_malformed`
 */
export function readKeyFile(path: string): PrivateKeyAccount {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new KeyError(
      'key_file_unreadable',
      `key file ${path} cannot be opened (${codeOf(error)})`,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new KeyError('key_file_unreadable', `key file ${path} is not a regular file`);
    // POSIX permissions only: Windows reports 0666 for every file it lets us read.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)
      throw new KeyError(
        'key_file_exposed',
        `key file ${path} may be read by group or others (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}): chmod 600 ${path}`,
      );
    if (stat.size > MAX_KEY_FILE_BYTES)
      throw new KeyError('key_malformed', `key file ${path} is longer than a key`);
    const buffer = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, length).toString('utf8');
    buffer.fill(0);
    return privateKeyToAccount(parsePrivateKey(text, `key file ${path}`));
  } finally {
    closeSync(fd);
  }
}

/**
 * Takes the key in `env[name]` and removes the variable from `env` — from the process's own
 * environment when `env` is `process.env` — whether or not it parses.
 * @returns the account, or `undefined` when the variable is unset or empty
 * @throws KeyError `key_malformed`
 */
export function takeEnvironmentKey(
  env: NodeJS.ProcessEnv = process.env,
  name: string = OPERATOR_KEY_ENV,
): PrivateKeyAccount | undefined {
  const text = env[name];
  delete env[name];
  if (text === undefined || text === '') return undefined;
  return privateKeyToAccount(parsePrivateKey(text, name));
}

/** Key files as given on the command line: one for every role, and files per role. */
export interface KeyFileSpec {
  /** The file for every role without a file of its own. */
  readonly all?: string;
  /** A role's own file (`role=FILE`). */
  readonly byRole: Readonly<Partial<Record<HotRole, string>>>;
}

/**
 * Parses `--operator-key-file` values (repeatable; `OPERATOR_KEY_FILE` is comma-separated): `FILE`
 * for every role, `role=FILE` for one (`acceptor`, `payout`, `relayer`).
 * @throws KeyError `key_role_invalid` for an unknown role, a role or the shared file given twice
 */
export function parseKeyFileSpec(entries: readonly string[]): KeyFileSpec {
  let all: string | undefined;
  const byRole: Partial<Record<HotRole, string>> = {};
  for (const entry of entries) {
    const match = /^([a-z]+)=(.+)$/.exec(entry);
    if (!match) {
      if (all !== undefined)
        throw new KeyError('key_role_invalid', 'more than one key file for every role');
      all = entry;
      continue;
    }
    const role = match[1] as HotRole;
    if (!HOT_ROLES.includes(role))
      throw new KeyError(
        'key_role_invalid',
        `unknown role ${JSON.stringify(match[1]!.slice(0, 20))}: expected one of ${HOT_ROLES.join(', ')}`,
      );
    if (byRole[role] !== undefined)
      throw new KeyError('key_role_invalid', `more than one key file for ${role}`);
    byRole[role] = match[2]!;
  }
  return all === undefined ? { byRole } : { all, byRole };
}

/** The operator's hot keys, by role. */
export interface OperatorKeys {
  /** The account that signs for `role`, if one was configured. */
  account(role: HotRole): PrivateKeyAccount | undefined;
  /** The roles that have a key, in {@link HOT_ROLES}'s order. */
  readonly roles: readonly HotRole[];
}

/**
 * Loads the hot keys: from the key files of `spec`, or else from `OPERATOR_KEY` (one key for
 * every role). `OPERATOR_KEY` leaves `env` in every case, refused or not.
 * @throws KeyError any of {@link readKeyFile}'s, `key_malformed` for `OPERATOR_KEY`,
 *   `key_source_conflict` when both are given
 */
export function loadOperatorKeys(
  spec: KeyFileSpec,
  env: NodeJS.ProcessEnv = process.env,
): OperatorKeys {
  const fromEnvironment = takeEnvironmentKey(env);
  const files = spec.all !== undefined || Object.keys(spec.byRole).length > 0;
  if (fromEnvironment && files)
    throw new KeyError(
      'key_source_conflict',
      `both key files and ${OPERATOR_KEY_ENV} are set: give one of them`,
    );
  const accounts = new Map<HotRole, PrivateKeyAccount>();
  // One read per file, however many roles it serves.
  const byPath = new Map<string, PrivateKeyAccount>();
  for (const role of HOT_ROLES) {
    const path = spec.byRole[role] ?? spec.all;
    if (path !== undefined) {
      let account = byPath.get(path);
      if (!account) {
        account = readKeyFile(path);
        byPath.set(path, account);
      }
      accounts.set(role, account);
    } else if (fromEnvironment) {
      accounts.set(role, fromEnvironment);
    }
  }
  return {
    account: (role) => accounts.get(role),
    roles: HOT_ROLES.filter((role) => accounts.has(role)),
  };
}

/** Whether `address` is one of the published development accounts. */
export function isDevelopmentAddress(address: Hex): boolean {
  return DEVELOPMENT_ADDRESSES.some((known) => isAddressEqual(known, address));
}

/**
 * Refuses the published development keys anywhere but on a local chain.
 * @throws KeyError `key_development` naming the role (and the account's public address)
 */
export function refuseDevelopmentKeys(chainId: number, keys: OperatorKeys): void {
  if (chainId === DEVELOPMENT_CHAIN_ID) return;
  for (const role of keys.roles) {
    const address = keys.account(role)!.address;
    if (isDevelopmentAddress(address))
      throw new KeyError(
        'key_development',
        `the ${role} key (${address}) is one of anvil's published development keys: refused on chain ${chainId}`,
      );
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'error';
}
