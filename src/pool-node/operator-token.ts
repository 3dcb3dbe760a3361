/**
 * @module The operator's deposit token on devnet: `POOL_OPERATOR_TOKEN` when set; otherwise the
 * token kept in the data directory (`operator-token`, mode 0600), generated on first start and
 * printed that once, so `priv-stark deposit` on the same machine finds it.
 */

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Minimum length of an operator token. */
export const MIN_TOKEN_LENGTH = 16;

/** Where a data directory keeps the generated token. */
export function operatorTokenPath(dataDir: string): string {
  return join(resolve(dataDir), 'operator-token');
}

/** The token, and whether it was generated just now (then the caller prints it, once). */
export interface OperatorToken {
  readonly token: string;
  readonly generated: boolean;
  /** The file it came from or went to, if any. */
  readonly file?: string;
}

/**
 * Resolves the operator token.
 * @throws RangeError when a given token is shorter than 16 characters
 */
export function resolveOperatorToken(options: {
  token?: string | undefined;
  dataDir: string;
}): OperatorToken {
  if (options.token !== undefined && options.token !== '') {
    if (options.token.length < MIN_TOKEN_LENGTH)
      throw new RangeError(`POOL_OPERATOR_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters`);
    return { token: options.token, generated: false };
  }
  const file = operatorTokenPath(options.dataDir);
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), generated: false, file };
  const token = randomBytes(32).toString('base64url');
  mkdirSync(resolve(options.dataDir), { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, generated: true, file };
}

/** The token a client uses: the explicit one, `POOL_OPERATOR_TOKEN`, or the data directory's file. */
export function findOperatorToken(options: {
  token?: string | undefined;
  dataDir: string;
}): string | null {
  if (options.token) return options.token;
  const file = operatorTokenPath(options.dataDir);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}
