// Native and WebAssembly give identical outputs for random inputs: the same Rust core, two
// compilers and two ABIs.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import {
  type Domain,
  DOMAINS,
  digestElements,
  type PrivStarkCore,
  loadBackend,
} from '../../src/index.js';

const P = 2n ** 64n - 2n ** 32n + 1n;
const element = fc.bigInt({ min: 0n, max: P - 1n });
const digest = fc
  .array(element, { minLength: 4, maxLength: 4 })
  .map((words) => `0x${Buffer.from(new BigUint64Array(words).buffer).toString('hex')}` as const);
const domain = fc.constantFrom(...(Object.keys(DOMAINS) as Domain[]));

describe('native and wasm agree', () => {
  let native: PrivStarkCore;
  let wasm: PrivStarkCore;
  beforeAll(async () => {
    [native, wasm] = await Promise.all([loadBackend('native'), loadBackend('wasm')]);
  });

  it('on the permutation', () => {
    fc.assert(
      fc.property(fc.array(element, { minLength: 12, maxLength: 12 }), (state) => {
        expect(wasm.rpoPermute(state)).toEqual(native.rpoPermute(state));
      }),
      { numRuns: 200 },
    );
  });

  it('on domain hashes of any length', () => {
    fc.assert(
      fc.property(domain, fc.array(element, { maxLength: 40 }), (d, elements) => {
        expect(wasm.hashElements(d, elements)).toBe(native.hashElements(d, elements));
      }),
      { numRuns: 200 },
    );
  });

  it('on trees, paths and frontiers', () => {
    fc.assert(
      fc.property(fc.array(digest, { minLength: 1, maxLength: 30 }), fc.nat(), (leaves, pick) => {
        const index = pick % leaves.length;
        const root = native.treeRoot(leaves);
        expect(wasm.treeRoot(leaves)).toBe(root);
        expect(wasm.frontierAppend(wasm.emptyFrontier(), leaves).root).toBe(root);
        const path = native.treePath(leaves, index);
        expect(wasm.treePath(leaves, index)).toEqual(path);
        expect(wasm.rootFromPath(leaves[index]!, index, path)).toBe(root);
      }),
      { numRuns: 40 },
    );
  });

  it('on batch merges and deposit matches', () => {
    fc.assert(
      fc.property(
        fc.array(digest, { maxLength: 20 }),
        fc.array(digest, { maxLength: 6 }),
        fc.array(fc.tuple(fc.bigInt({ min: 1n, max: 2n ** 62n - 1n }), fc.nat(), fc.boolean()), {
          maxLength: 20,
        }),
        (nodes, pres, picks) => {
          const pairs = nodes.slice(0, nodes.length - (nodes.length % 2));
          expect(wasm.mergePairs(pairs)).toEqual(native.mergePairs(pairs));
          // Some deposits pay one of the precommitments, the others are random.
          const deposits = picks.map(([amount, pick, ours], i) => ({
            amount: amount.toString(),
            commitment:
              ours && pres.length > 0
                ? native.hashElements('NOTE', [
                    amount,
                    ...digestElements(pres[pick % pres.length]!),
                  ])
                : (nodes[i % Math.max(1, nodes.length)] ?? pres[0] ?? `0x${'0'.repeat(64)}`),
          }));
          expect(wasm.depositMatches(pres, deposits)).toEqual(
            native.depositMatches(pres, deposits),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('on context digests of any text', () => {
    const text = (max: number) =>
      fc.string({ unit: 'grapheme', maxLength: max }).filter((s) => Buffer.byteLength(s) <= max);
    fc.assert(
      fc.property(
        fc.record({
          scheme: text(32),
          network: text(64),
          asset: text(64),
          payTo: text(128),
          amount: fc.bigInt({ min: 1n, max: 2n ** 62n - 1n }).map(String),
          resourceId: text(256),
          expiry: fc.nat(),
        }),
        (context) => {
          expect(wasm.contextDigest(context)).toBe(native.contextDigest(context));
        },
      ),
      { numRuns: 200 },
    );
  });
});
