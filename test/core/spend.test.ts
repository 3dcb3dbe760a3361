// Spend proofs through the facade on both backends, and across them: round trips, every wrong
// statement refused, mutations rejected with a code, randomised proofs, the checked-in fixture.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import {
  type DigestHex,
  type PrivStarkCore,
  PROOF_ERROR_CODES,
  type SpendProof,
  type SpendPublicInputs,
  type SpendWitness,
  loadBackend,
  randomDigest,
  randomNote,
  spendWitness,
} from '../../src/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { goldenProof } from '../helpers/golden-proof.js';

const context = {
  scheme: 'priv-stark/v1',
  network: 'shielded:devnet',
  asset: 'dUSD',
  payTo: 'pstark1placeholder',
  amount: '2500',
  resourceId: 'GET /weather',
  expiry: 1_800_000_000,
};

/** A pool of 7 other notes with ours at index 5; pays 2500 out of 10000. */
async function scenario(core: PrivStarkCore, overrides: { value?: string; amount?: string } = {}) {
  const note = randomNote(core, overrides.value ?? '10000');
  const leaves = Array.from({ length: 8 }, (_, i) => (i === 5 ? note.commitment : randomDigest()));
  const amount = overrides.amount ?? context.amount;
  const ctx = core.contextDigest({ ...context, amount });
  const witness = await spendWitness(core, { note, leaves, index: 5, amount, ctx });
  return { note, leaves, root: core.treeRoot(leaves), ctx, witness };
}

describe.each(BACKENDS)('%s backend: spend proofs', (backend) => {
  let core: PrivStarkCore;
  let base: Awaited<ReturnType<typeof scenario>>;
  let proven: SpendProof;
  beforeAll(async () => {
    core = await loadBackend(backend);
    base = await scenario(core);
    proven = await core.proveSpend(base.witness);
  });

  it('lists exactly the proof codes the TypeScript side knows', () => {
    expect(core.proofErrorCodes()).toEqual([...PROOF_ERROR_CODES]);
  });

  it('proves a statement whose public inputs are the pool root, the nullifier and the change', async () => {
    expect(proven.publicInputs).toEqual(core.spendPublicInputs(base.witness));
    expect(proven.publicInputs.root).toBe(base.root);
    expect(proven.publicInputs.nullifier).toBe(base.note.nullifier);
    expect(proven.publicInputs.amount).toBe('2500');
    expect(proven.publicInputs.ctx).toBe(base.ctx);
    expect(proven.publicInputs.change).not.toBe(base.note.commitment);
    expect(await core.verifySpend(proven.proof, proven.publicInputs)).toEqual({ ok: true });
  });

  it('refuses every wrong public input (must-fail twins)', async () => {
    const other = randomDigest();
    const wrong: Partial<SpendPublicInputs>[] = [
      { root: other },
      { nullifier: other },
      { change: other },
      { amount: '2501' },
      { ctx: core.contextDigest({ ...context, payTo: 'pstark1someoneelse' }) },
    ];
    for (const change of wrong) {
      const verdict = await core.verifySpend(proven.proof, { ...proven.publicInputs, ...change });
      expect(verdict.ok, JSON.stringify(change)).toBe(false);
    }
  });

  it('does not let a proof for one payment verify for another payment', async () => {
    const second = await scenario(core);
    const secondProof = await core.proveSpend(second.witness);
    expect((await core.verifySpend(proven.proof, secondProof.publicInputs)).ok).toBe(false);
    expect((await core.verifySpend(secondProof.proof, proven.publicInputs)).ok).toBe(false);
  });

  it('refuses to prove a false statement', async () => {
    const poor = await scenario(core, { value: '100', amount: '2500' });
    await expect(core.proveSpend(poor.witness)).rejects.toMatchObject({
      code: 'insufficient_value',
    });
    const tampered: SpendWitness = {
      ...base.witness,
      path: base.witness.path.map((p, i) => (i === 3 ? randomDigest() : p)),
    };
    const moved = await core.proveSpend(tampered);
    expect(moved.publicInputs.root).not.toBe(base.root);
    expect((await core.verifySpend(moved.proof, proven.publicInputs)).ok).toBe(false);
    const wrongKey: SpendWitness = { ...base.witness, sk: randomDigest() };
    const stranger = await core.proveSpend(wrongKey);
    expect(stranger.publicInputs.root).not.toBe(base.root);
    const wrongIndex: SpendWitness = { ...base.witness, index: 4 };
    expect((await core.proveSpend(wrongIndex)).publicInputs.root).not.toBe(base.root);
  });

  it('randomises proofs: two proofs of one witness differ and both verify', async () => {
    const again = await core.proveSpend(base.witness);
    expect(Buffer.from(again.proof).equals(Buffer.from(proven.proof))).toBe(false);
    expect(await core.verifySpend(again.proof, again.publicInputs)).toEqual({ ok: true });
  });

  it('rejects mutated, truncated and extended proofs with a code, never a crash', async () => {
    const known = new Set<string>(PROOF_ERROR_CODES);
    const check = async (bytes: Uint8Array) => {
      const verdict = await core.verifySpend(bytes, proven.publicInputs);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(known.has(verdict.code), verdict.code).toBe(true);
    };
    await check(proven.proof.slice(0, proven.proof.length - 1));
    await check(new Uint8Array([...proven.proof, 0]));
    await check(new Uint8Array(0));
    await check(new Uint8Array(200 * 1024));
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.integer({ min: 1, max: 255 }), async (position, delta) => {
        const mutated = proven.proof.slice();
        const at = position % mutated.length;
        mutated[at] = (mutated[at]! + delta) & 0xff;
        await check(mutated);
      }),
      { numRuns: 40 },
    );
  });

  it('answers malformed public inputs with a verdict, not an exception', async () => {
    const bad = {
      ...proven.publicInputs,
      root: proven.publicInputs.root.toUpperCase() as DigestHex,
    };
    expect(await core.verifySpend(proven.proof, bad)).toEqual({ ok: false, code: 'invalid_hex' });
    expect(
      (await core.verifySpend(proven.proof, { ...proven.publicInputs, amount: '-1' })).ok,
    ).toBe(false);
    await expect(
      core.verifySpend('proof' as unknown as Uint8Array, proven.publicInputs),
    ).rejects.toThrow(TypeError);
  });
});

describe('proofs cross backends', () => {
  it('proved natively verifies in WASM, and back', async () => {
    const [native, wasm] = await Promise.all([loadBackend('native'), loadBackend('wasm')]);
    const s = await scenario(native);
    const fromNative = await native.proveSpend(s.witness);
    expect(await wasm.verifySpend(fromNative.proof, fromNative.publicInputs)).toEqual({ ok: true });
    const fromWasm = await wasm.proveSpend(s.witness);
    expect(await native.verifySpend(fromWasm.proof, fromWasm.publicInputs)).toEqual({ ok: true });
    expect(fromWasm.publicInputs).toEqual(fromNative.publicInputs);
  });
});

describe.each(BACKENDS)('%s backend: the checked-in fixture', (backend) => {
  it('verifies test/fixtures/spend/proof.bin against public.json, and not a tampered twin', async () => {
    const core = await loadBackend(backend);
    const { proof, inputs } = goldenProof();
    expect(await core.verifySpend(proof, inputs)).toEqual({ ok: true });
    expect(
      (await core.verifySpend(proof, { ...inputs, amount: `${BigInt(inputs.amount) + 1n}` })).ok,
    ).toBe(false);
  });
});
