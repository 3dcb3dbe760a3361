// The operator's hot keys: key files any other user may read are refused, malformed keys are
// refused without the text in the message, OPERATOR_KEY leaves the process environment once read
// (a child spawned after does not inherit it), one file per role or one for all, and the
// published development keys are refused on any chain but the local one.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';

import {
  DEVELOPMENT_ADDRESSES,
  isDevelopmentAddress,
  KeyError,
  loadOperatorKeys,
  OPERATOR_KEY_ENV,
  parseKeyFileSpec,
  parsePrivateKey,
  readKeyFile,
  refuseDevelopmentKeys,
  takeEnvironmentKey,
} from '../../src/chain/keys.js';
import { scratchDir } from '../scratch-dir.js';

const dir = scratchDir('priv-stark-keys-');
let files = 0;

/** Writes `text` to a new file of `mode`. */
function keyFile(text: string, mode = 0o600): string {
  const path = join(dir, `key-${files++}`);
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return path;
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof KeyError) return error.code;
    throw error;
  }
  throw new Error('expected a KeyError');
}

/** The secp256k1 group order n: a key must be in 1 .. n − 1. */
const ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('readKeyFile', () => {
  it('reads a key from a file of mode 0600 (0x optional, whitespace ignored)', () => {
    const key = generatePrivateKey();
    const { address } = privateKeyToAccount(key);
    expect(readKeyFile(keyFile(`${key}\n`)).address).toBe(address);
    expect(readKeyFile(keyFile(`  ${key.slice(2).toUpperCase()}  `, 0o400)).address).toBe(address);
  });

  it.skipIf(process.platform === 'win32')(
    'refuses a file group or others may read or write, naming the mode',
    () => {
      const key = generatePrivateKey();
      for (const mode of [0o640, 0o604, 0o644, 0o620, 0o602, 0o660]) {
        const path = keyFile(key, mode);
        expect(codeOf(() => readKeyFile(path))).toBe('key_file_exposed');
        expect(() => readKeyFile(path)).toThrow(`mode 0${mode.toString(8)}`);
        // The same file once narrowed is read.
        chmodSync(path, 0o600);
        expect(readKeyFile(path).address).toBe(privateKeyToAccount(key).address);
      }
    },
  );

  it('refuses a missing file, a directory and an over-long file', () => {
    expect(codeOf(() => readKeyFile(join(dir, 'absent')))).toBe('key_file_unreadable');
    const sub = join(dir, 'a-directory');
    mkdirSync(sub, { mode: 0o700 });
    expect(codeOf(() => readKeyFile(sub))).toBe('key_file_unreadable');
    expect(codeOf(() => readKeyFile(keyFile(`${generatePrivateKey()}\n${'#'.repeat(2000)}`)))).toBe(
      'key_malformed',
    );
  });

  it('refuses what is not one key, never echoing the text', () => {
    const key = generatePrivateKey();
    const bad = [
      '',
      key.slice(0, 40),
      `${key}00`,
      `${key}\n${generatePrivateKey()}`,
      `0x${'0'.repeat(64)}`,
      `0x${ORDER.toString(16)}`,
      `0x${'g'.repeat(64)}`,
    ];
    for (const text of bad) {
      const path = keyFile(text);
      let message = '';
      try {
        readKeyFile(path);
      } catch (error) {
        expect(error).toBeInstanceOf(KeyError);
        expect((error as KeyError).code).toBe('key_malformed');
        message = (error as Error).message;
      }
      expect(message).toContain(path);
      if (text.length > 8) expect(message).not.toContain(text.slice(2, 34));
    }
    // Twin: the largest valid scalar is a key.
    expect(parsePrivateKey(`0x${(ORDER - 1n).toString(16)}`, 'n − 1')).toBe(
      `0x${(ORDER - 1n).toString(16)}`,
    );
  });
});

describe('OPERATOR_KEY', () => {
  it('is removed from the environment once read, parsed or not', () => {
    const key = generatePrivateKey();
    const env: NodeJS.ProcessEnv = { [OPERATOR_KEY_ENV]: key };
    expect(takeEnvironmentKey(env)?.address).toBe(privateKeyToAccount(key).address);
    expect(env).not.toHaveProperty(OPERATOR_KEY_ENV);
    const malformed: NodeJS.ProcessEnv = { [OPERATOR_KEY_ENV]: 'not-a-key' };
    expect(codeOf(() => takeEnvironmentKey(malformed))).toBe('key_malformed');
    expect(malformed).not.toHaveProperty(OPERATOR_KEY_ENV);
    expect(takeEnvironmentKey({})).toBeUndefined();
  });

  it.skipIf(process.platform === 'win32')(
    'leaves the process environment: a child spawned after does not inherit it',
    () => {
      const key = generatePrivateKey();
      process.env[OPERATOR_KEY_ENV] = key;
      // Twin: before the key is read, a child sees it.
      expect(spawnSync('env', { encoding: 'utf8' }).stdout).toContain(key);
      const keys = loadOperatorKeys(parseKeyFileSpec([]));
      expect(keys.account('acceptor')?.address).toBe(privateKeyToAccount(key).address);
      expect(process.env[OPERATOR_KEY_ENV]).toBeUndefined();
      expect(spawnSync('env', { encoding: 'utf8' }).stdout).not.toContain(key.slice(2));
    },
  );
});

describe('loadOperatorKeys', () => {
  it('one file for every role, or a file per role (a role of its own wins)', () => {
    const [shared, payout] = [generatePrivateKey(), generatePrivateKey()];
    const all = loadOperatorKeys(parseKeyFileSpec([keyFile(shared)]), {});
    expect(all.roles).toEqual(['acceptor', 'payout', 'relayer', 'attester']);
    expect(all.account('relayer')?.address).toBe(privateKeyToAccount(shared).address);

    const split = loadOperatorKeys(
      parseKeyFileSpec([keyFile(shared), `payout=${keyFile(payout)}`]),
      {},
    );
    expect(split.account('acceptor')?.address).toBe(privateKeyToAccount(shared).address);
    expect(split.account('payout')?.address).toBe(privateKeyToAccount(payout).address);

    const one = loadOperatorKeys(parseKeyFileSpec([`acceptor=${keyFile(shared)}`]), {});
    expect(one.roles).toEqual(['acceptor']);
    expect(one.account('payout')).toBeUndefined();
    expect(loadOperatorKeys(parseKeyFileSpec([]), {}).roles).toEqual([]);
  });

  it('a file of one role with the wrong mode is refused like any other', () => {
    const spec = parseKeyFileSpec([
      keyFile(generatePrivateKey()),
      `payout=${keyFile(generatePrivateKey(), 0o644)}`,
    ]);
    expect(codeOf(() => loadOperatorKeys(spec, {}))).toBe('key_file_exposed');
  });

  it('refuses key files and OPERATOR_KEY together, and still removes the variable', () => {
    const env: NodeJS.ProcessEnv = { [OPERATOR_KEY_ENV]: generatePrivateKey() };
    const spec = parseKeyFileSpec([keyFile(generatePrivateKey())]);
    expect(codeOf(() => loadOperatorKeys(spec, env))).toBe('key_source_conflict');
    expect(env).not.toHaveProperty(OPERATOR_KEY_ENV);
  });

  it('parses role=FILE entries and refuses unknown or repeated roles', () => {
    expect(parseKeyFileSpec(['/k', 'relayer=/r'])).toEqual({
      all: '/k',
      byRole: { relayer: '/r' },
    });
    expect(codeOf(() => parseKeyFileSpec(['owner=/k']))).toBe('key_role_invalid');
    expect(codeOf(() => parseKeyFileSpec(['payout=/a', 'payout=/b']))).toBe('key_role_invalid');
    expect(codeOf(() => parseKeyFileSpec(['/a', '/b']))).toBe('key_role_invalid');
  });
});

describe('development keys', () => {
  it('are the first ten accounts of the published mnemonic', () => {
    const mnemonic = 'test test test test test test test test test test test junk';
    const derived = Array.from(
      { length: 10 },
      (_, i) => mnemonicToAccount(mnemonic, { addressIndex: i }).address,
    );
    expect(DEVELOPMENT_ADDRESSES).toEqual(derived);
    // Twin: the eleventh is not on the list (anvil funds ten by default).
    expect(isDevelopmentAddress(mnemonicToAccount(mnemonic, { addressIndex: 10 }).address)).toBe(
      false,
    );
  });

  it('are refused on any chain but 31337; a fresh key is not', () => {
    // anvil's account 0: its key is published with the mnemonic.
    const published = keyFile('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    const keys = loadOperatorKeys(parseKeyFileSpec([`payout=${published}`]), {});
    expect(isDevelopmentAddress(keys.account('payout')!.address)).toBe(true);
    expect(() => refuseDevelopmentKeys(31337, keys)).not.toThrow();
    expect(codeOf(() => refuseDevelopmentKeys(8453, keys))).toBe('key_development');
    expect(() => refuseDevelopmentKeys(8453, keys)).toThrow(/payout key \(0xf39F/);
    const fresh = loadOperatorKeys(parseKeyFileSpec([keyFile(generatePrivateKey())]), {});
    expect(() => refuseDevelopmentKeys(8453, fresh)).not.toThrow();
  });
});
