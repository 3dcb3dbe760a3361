// Bad input on both backends: wrong types and shapes are TypeError/RangeError from the facade;
// what only the core can judge (canonical elements, lengths of raw bytes, limits) is a CoreError
// with the same stable code on both. Nothing crashes or aborts the process.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { CORE_ERROR_CODES, CoreError, type PrivStarkCore, loadBackend } from '../../src/index.js';
import type { RawBinding } from '../../src/core/binding.js';
import { loadNative } from '../../src/core/native.js';
import { loadWasm } from '../../src/core/wasm.js';
import { BACKENDS } from '../helpers/backends.js';

const P = 2n ** 64n - 2n ** 32n + 1n;
const ZERO = `0x${'00'.repeat(32)}`;
/** A digest whose third element is p: well-formed hex, not canonical. */
const NON_CANONICAL = `0x${'00'.repeat(16)}${Buffer.from(new BigUint64Array([P]).buffer).toString('hex')}${'00'.repeat(8)}`;

function codeOf(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (error instanceof CoreError) return error.code;
    throw error;
  }
  throw new Error('expected a CoreError');
}

const context = {
  scheme: 'priv-stark/v1',
  network: 'shielded:devnet',
  asset: 'dUSD',
  payTo: 'pstark1abc',
  amount: '5',
  resourceId: '',
  expiry: 1_800_000_000,
};

describe.each(BACKENDS)('%s backend: rejections', (backend) => {
  let core: PrivStarkCore;
  let raw: RawBinding;
  beforeAll(async () => {
    core = await loadBackend(backend);
    raw = backend === 'native' ? loadNative() : await loadWasm();
  });

  it('lists exactly the codes the TypeScript side knows', () => {
    expect(core.errorCodes()).toEqual([...CORE_ERROR_CODES]);
  });

  it('refuses non-canonical field elements with non_canonical_element', () => {
    expect(codeOf(() => core.parseDigest(NON_CANONICAL))).toBe('non_canonical_element');
    expect(codeOf(() => core.merge(NON_CANONICAL, ZERO))).toBe('non_canonical_element');
    expect(codeOf(() => core.treeRoot([ZERO, NON_CANONICAL]))).toBe('non_canonical_element');
    expect(codeOf(() => core.rpoPermute([P, ...Array<bigint>(11).fill(0n)]))).toBe(
      'non_canonical_element',
    );
    expect(codeOf(() => core.hashElements('NODE', [P - 1n, P]))).toBe('non_canonical_element');
    expect(core.parseDigest(ZERO)).toBe(ZERO);
  });

  it('refuses malformed digest strings in the core too (invalid_hex)', () => {
    for (const bad of [
      '',
      '0x',
      ZERO.toUpperCase(),
      `${ZERO}0`,
      ZERO.slice(0, -1),
      ` ${ZERO.slice(1)}`,
      `0x${'g'.repeat(64)}`,
    ]) {
      expect(codeOf(() => core.parseDigest(bad))).toBe('invalid_hex');
    }
  });

  it('refuses wrong byte lengths at the binding with invalid_length', () => {
    const bad = (call: () => unknown) => {
      try {
        call();
      } catch (error) {
        return (error as Error).message.split(':')[0];
      }
      return 'accepted';
    };
    expect(bad(() => raw.merge(new Uint8Array(31), new Uint8Array(32)))).toBe('invalid_length');
    expect(bad(() => raw.rpoPermute(new Uint8Array(97)))).toBe('invalid_length');
    expect(bad(() => raw.hashElements(4, new Uint8Array(9)))).toBe('invalid_length');
    expect(bad(() => raw.frontierAppend(new Uint8Array(10), new Uint8Array(0)))).toBe(
      'invalid_length',
    );
    expect(bad(() => raw.rootFromPath(new Uint8Array(32), 0, new Uint8Array(31 * 32)))).toBe(
      'invalid_length',
    );
    expect(bad(() => raw.hashElements(99, new Uint8Array(0)))).toBe('unknown_domain');
    expect(bad(() => raw.contextDigest(new Uint8Array([200, 0, 0, 0])))).toBe('invalid_length');
    expect(bad(() => raw.digestToHex(new Uint8Array(33)))).toBe('invalid_length');
    expect(bad(() => raw.mergePairs(new Uint8Array(32)))).toBe('invalid_length');
    expect(bad(() => raw.depositMatches(new Uint8Array(31), new Uint8Array(0)))).toBe(
      'invalid_length',
    );
    expect(bad(() => raw.depositMatches(new Uint8Array(32), new Uint8Array(39)))).toBe(
      'invalid_length',
    );
    // An amount no pool accepts (2^62) never matches a commitment: refused.
    const tooLarge = new Uint8Array(40);
    tooLarge[7] = 0x40;
    expect(bad(() => raw.depositMatches(new Uint8Array(32), tooLarge))).toBe('value_out_of_range');
  });

  it('enforces the context limits with stable codes', () => {
    expect(codeOf(() => core.contextDigest({ ...context, amount: '0' }))).toBe(
      'value_out_of_range',
    );
    expect(codeOf(() => core.contextDigest({ ...context, amount: (2n ** 62n).toString() }))).toBe(
      'value_out_of_range',
    );
    expect(codeOf(() => core.contextDigest({ ...context, payTo: 'p'.repeat(129) }))).toBe(
      'field_too_long',
    );
    expect(codeOf(() => core.contextDigest({ ...context, resourceId: 'é'.repeat(129) }))).toBe(
      'field_too_long',
    );
    expect(() =>
      core.contextDigest({ ...context, payTo: 'p'.repeat(128), resourceId: 'r'.repeat(256) }),
    ).not.toThrow();
  });

  it('refuses out-of-range indexes', () => {
    expect(codeOf(() => core.treePath([ZERO, ZERO], 2))).toBe('index_out_of_range');
    expect(codeOf(() => core.treePath([], 0))).toBe('index_out_of_range');
  });

  it('rejects wrong JavaScript types and shapes before the core', async () => {
    const anyCore = core as unknown as Record<string, (...args: unknown[]) => unknown>;
    expect(() => anyCore.merge!(1, ZERO)).toThrow(TypeError);
    expect(() => anyCore.merge!(ZERO.toUpperCase(), ZERO)).toThrow(RangeError);
    expect(() => anyCore.treeRoot!('leaves')).toThrow(TypeError);
    expect(() => anyCore.treeRoot!([ZERO, 5])).toThrow(TypeError);
    expect(() => anyCore.treePath!([ZERO], -1)).toThrow(RangeError);
    expect(() => anyCore.treePath!([ZERO], 0.5)).toThrow(RangeError);
    expect(() => anyCore.treePath!([ZERO], 2 ** 32)).toThrow(RangeError);
    expect(() => anyCore.rpoPermute!([1n, 2n])).toThrow(RangeError);
    expect(() => anyCore.rpoPermute!(Array(12).fill(1))).toThrow(TypeError);
    expect(() => anyCore.hashElements!('NOPE', [])).toThrow(RangeError);
    expect(() => anyCore.hashElements!('NODE', [-1n])).toThrow(RangeError);
    expect(() => anyCore.rootFromPath!(ZERO, 0, [ZERO])).toThrow(RangeError);
    expect(() => anyCore.contextDigest!(null)).toThrow(TypeError);
    expect(() => anyCore.contextDigest!({ ...context, amount: 5 })).toThrow(TypeError);
    expect(() => anyCore.contextDigest!({ ...context, amount: '05' })).toThrow(RangeError);
    expect(() => anyCore.contextDigest!({ ...context, expiry: '1' })).toThrow(TypeError);
    expect(() => anyCore.frontierAppend!({ state: 'x' }, [])).toThrow(TypeError);
    await expect(anyCore.treeRootAsync!('x')).rejects.toThrow(TypeError);
    await expect(core.treePathAsync([ZERO], 1)).rejects.toMatchObject({
      code: 'index_out_of_range',
    });
  });

  it('never crashes on arbitrary bytes: every failure carries a known code', () => {
    const known = new Set<string>(CORE_ERROR_CODES);
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 1200 }),
        fc.uint8Array({ maxLength: 200 }),
        fc.nat({ max: 2 ** 32 - 1 }),
        (a, b, index) => {
          for (const call of [
            () => raw.rpoPermute(a),
            () => raw.hashElements(index % 12, a),
            () => raw.merge(a, b),
            () => raw.frontierAppend(a, b),
            () => raw.treeRoot(a),
            () => raw.treePath(b, index),
            () => raw.rootFromPath(b, index, a),
            () => raw.contextDigest(a),
            () => raw.digestToHex(b),
            () => raw.digestFromHex(Buffer.from(a).toString('latin1')),
          ]) {
            try {
              call();
            } catch (error) {
              const code = (error as Error).message.split(':')[0] ?? '';
              expect(known.has(code) && code !== 'internal_panic', `${code}`).toBe(true);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
