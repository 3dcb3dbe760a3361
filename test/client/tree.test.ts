// The wallet's local tree against the core's: the same root for every prefix size, and paths that
// lead from each leaf to the root of an earlier size (a checkpoint).

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { LocalTree } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore, randomDigest } from '../../src/core/index.js';

describe('LocalTree', () => {
  let core: PrivStarkCore;
  beforeAll(async () => {
    core = await loadCore();
  });

  it("gives the core's root and valid paths for every prefix", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 5 }),
        (batches) => {
          const tree = new LocalTree(core);
          const all: ReturnType<typeof randomDigest>[] = [];
          for (const count of batches) {
            const leaves = Array.from({ length: count }, () => randomDigest());
            tree.append(leaves);
            all.push(...leaves);
          }
          expect(tree.size).toBe(all.length);
          for (let size = 0; size <= all.length; size++) {
            const root = core.treeRoot(all.slice(0, size));
            expect(tree.root(size)).toBe(root);
            for (let index = 0; index < size; index++) {
              const path = tree.path(index, size);
              expect(path).toEqual(core.treePath(all.slice(0, size), index));
              expect(core.rootFromPath(all[index]!, index, path)).toBe(root);
            }
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it('refuses sizes and indexes it cannot answer', () => {
    const tree = new LocalTree(core);
    tree.append([randomDigest(), randomDigest()]);
    expect(() => tree.root(3)).toThrow(RangeError);
    expect(() => tree.path(2, 2)).toThrow(RangeError);
    expect(() => tree.path(0, 0)).toThrow(RangeError);
  });
});
