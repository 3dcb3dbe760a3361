// Known answers on both backends. The files come from the independent Python reference
// (scripts/reference/rpo_reference.py); the permutation vector is miden-crypto's. The Rust tests
// in crates/core/tests/vectors.rs read the same files.

import { beforeAll, describe, expect, it } from 'vitest';

import {
  type Domain,
  type PaymentContext,
  type PrivStarkCore,
  loadBackend,
} from '../../src/index.js';
import { BACKENDS, readVectors } from '../helpers/backends.js';

interface RpoVectors {
  permutation: { input: string[]; output: string[] }[];
  hashes: { domain: Domain; input: string[]; digest: string }[];
}
interface TreeVectors {
  emptyRoots: string[];
  leaves: string[];
  roots: string[];
  paths: Record<string, string[]>;
}
type ContextVector = PaymentContext & { ctx: string };
interface NoteVectors {
  sk: string;
  owner: string;
  depositRho: string;
  precommitment: string;
  commitment: string;
  nullifier: string;
}

const rpo = readVectors<RpoVectors>('rpo.json');
const tree = readVectors<TreeVectors>('tree.json');
const contexts = readVectors<{ contexts: ContextVector[] }>('context.json').contexts;
const notes = readVectors<NoteVectors>('notes.json');

function elementsOf(digest: string): bigint[] {
  const bytes = Buffer.from(digest.slice(2), 'hex');
  return [0, 8, 16, 24].map((offset) => bytes.readBigUInt64LE(offset));
}

describe.each(BACKENDS)('%s backend: known answers', (backend) => {
  let core: PrivStarkCore;
  beforeAll(async () => {
    core = await loadBackend(backend);
  });

  it('reports its backend, version and error codes', () => {
    expect(core.backend).toBe(backend);
    expect(core.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(core.buildProfile).toBe('release');
  });

  it('permutes like miden-crypto and the reference', () => {
    for (const { input, output } of rpo.permutation) {
      expect(core.rpoPermute(input.map(BigInt))).toEqual(output.map(BigInt));
    }
  });

  it('hashes every domain like the reference', () => {
    expect(rpo.hashes.length).toBeGreaterThanOrEqual(63);
    for (const { domain, input, digest } of rpo.hashes) {
      expect(core.hashElements(domain, input.map(BigInt))).toBe(digest);
    }
  });

  it('derives keys, notes and nullifiers like the reference', () => {
    const sk = elementsOf(notes.sk);
    const owner = core.hashElements('OWNER', sk);
    expect(owner).toBe(notes.owner);
    const rho = core.hashElements('DEPOSIT_RHO', [...sk, 0n]);
    expect(rho).toBe(notes.depositRho);
    const pre = core.hashElements('PRE', [...elementsOf(owner), ...elementsOf(rho)]);
    expect(pre).toBe(notes.precommitment);
    const cm = core.hashElements('NOTE', [1_000_000n, ...elementsOf(pre)]);
    expect(cm).toBe(notes.commitment);
    expect(core.hashElements('NULLIFIER', [...sk, ...elementsOf(cm)])).toBe(notes.nullifier);
  });

  it('builds the tree like the reference (frontier, full tree, paths)', async () => {
    expect(core.emptyFrontier().root).toBe(tree.emptyRoots[32]);
    expect(core.merge(tree.emptyRoots[0]!, tree.emptyRoots[0]!)).toBe(tree.emptyRoots[1]);
    let frontier = core.emptyFrontier();
    tree.leaves.forEach((leaf, k) => {
      frontier = core.frontierAppend(frontier, [leaf]);
      expect(frontier.size).toBe(k + 1);
      expect(frontier.root).toBe(tree.roots[k + 1]);
    });
    expect(core.frontierAppend(core.emptyFrontier(), tree.leaves).root).toBe(tree.roots.at(-1));
    expect((await core.frontierAppendAsync(core.emptyFrontier(), tree.leaves)).root).toBe(
      tree.roots.at(-1),
    );
    expect(core.treeRoot(tree.leaves)).toBe(tree.roots.at(-1));
    expect(await core.treeRootAsync(tree.leaves)).toBe(tree.roots.at(-1));
    for (const [index, path] of Object.entries(tree.paths)) {
      expect(core.treePath(tree.leaves, Number(index))).toEqual(path);
      expect(await core.treePathAsync(tree.leaves, Number(index))).toEqual(path);
      expect(core.rootFromPath(tree.leaves[Number(index)]!, Number(index), path)).toBe(
        tree.roots.at(-1),
      );
    }
  });

  it('computes context digests like the reference', () => {
    for (const { ctx, ...context } of contexts) {
      expect(core.contextDigest(context)).toBe(ctx);
    }
  });

  it('must-fail twins: a changed field changes ctx, a wrong path misses the root', () => {
    const [base] = contexts;
    const { ctx, ...context } = base!;
    for (const change of [
      { amount: '10001' },
      { payTo: `${context.payTo}x` },
      { network: 'shielded:other' },
      { asset: 'USDC' },
      { resourceId: '/other' },
      { expiry: context.expiry + 60 },
      { scheme: 'exact' },
    ]) {
      expect(core.contextDigest({ ...context, ...change })).not.toBe(ctx);
    }
    const path = tree.paths['2']!;
    expect(core.rootFromPath(tree.leaves[3]!, 2, path)).not.toBe(tree.roots.at(-1));
    expect(core.rootFromPath(tree.leaves[2]!, 3, path)).not.toBe(tree.roots.at(-1));
  });
});
