/**
 * @module The devnet API key when none is configured: kept in the data directory (`api-key`,
 * mode 0600), generated on first start and shown that once.
 */

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The data directory's API key, and whether it was generated just now (then the caller shows it, once). */
export function generatedApiKey(dataDir: string): {
  key: string;
  generated: boolean;
  file: string;
} {
  const file = join(resolve(dataDir), 'api-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), generated: false, file };
  const key = randomBytes(32).toString('base64url');
  mkdirSync(resolve(dataDir), { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return { key, generated: true, file };
}
