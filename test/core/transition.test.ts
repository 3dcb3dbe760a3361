// The transition statement (merge, split, exit) through both backends, the same suite on each: the
// golden proofs of crates/proof (test/fixtures/transition/, an exit of 50,000 with change 250,000,
// made by the landed set-16 prover; set-17/, the same transition under set 17, which the prover
// makes now) verify, and their twins do not (a flipped byte, another exit amount or memo, a spend
// proof in its place, a set the verifier does not know);
// a merge proven here verifies and its outputs come back to the key from the memo; the prover
// refuses what the statement forbids with stable codes.

import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import {
  CoreError,
  decodeTransitionPublicInputs,
  deriveNote,
  loadBackend,
  randomDigest,
  recoverTransitionOutputs,
  type TransitionWitness,
} from '../../src/core/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { goldenProof } from '../helpers/golden-proof.js';

const FIXTURES = new URL('../fixtures/transition/', import.meta.url);
const goldenOf = (dir: URL) => ({
  proof: new Uint8Array(readFileSync(new URL('proof.bin', dir))),
  inputs: decodeTransitionPublicInputs(new Uint8Array(readFileSync(new URL('public.bin', dir)))),
});
const golden = goldenOf(FIXTURES);
const golden17 = goldenOf(new URL('set-17/', FIXTURES));
/** Byte 5 of a proof's header: its parameter set. */
const SET_BYTE = 5;
const ZERO = `0x${'0'.repeat(64)}` as const;

describe.each(BACKENDS)('%s backend: transition proofs', (backend) => {
  it('verifies the golden proof and refuses its twins', async () => {
    const core = await loadBackend(backend);
    expect(golden.inputs.exit).toBe('50000');
    expect(await core.verifyTransition(golden.proof, golden.inputs)).toEqual({ ok: true });
    const flipped = golden.proof.slice();
    flipped[flipped.length - 100]! ^= 1;
    expect((await core.verifyTransition(flipped, golden.inputs)).ok).toBe(false);
    expect(await core.verifyTransition(golden.proof, { ...golden.inputs, exit: '50001' })).toEqual({
      ok: false,
      code: 'invalid_proof',
    });
    const spend = goldenProof();
    expect(await core.verifyTransition(spend.proof, golden.inputs)).toEqual({
      ok: false,
      code: 'bad_magic',
    });
    expect(
      await core.verifyTransition(golden.proof, {
        ...golden.inputs,
        nullifiers: [golden.inputs.nullifiers[0], golden.inputs.nullifiers[0]],
      }),
    ).toEqual({ ok: false, code: 'nullifiers_not_distinct' });
  });

  it('verifies the golden set-17 proof beside set 16, not under another memo or an unknown set', async () => {
    const core = await loadBackend(backend);
    expect(golden17.proof[SET_BYTE]).toBe(17);
    expect(golden.proof[SET_BYTE]).toBe(16);
    expect(golden17.inputs).toEqual(golden.inputs);
    expect(await core.verifyTransition(golden17.proof, golden17.inputs)).toEqual({ ok: true });
    const [first, second] = golden17.inputs.memo;
    const memo = [(BigInt(first) ^ 1n).toString(), second] as const;
    expect(await core.verifyTransition(golden17.proof, { ...golden17.inputs, memo })).toEqual({
      ok: false,
      code: 'invalid_proof',
    });
    for (const set of [15, 18]) {
      const relabelled = golden17.proof.slice();
      relabelled[SET_BYTE] = set;
      expect(await core.verifyTransition(relabelled, golden17.inputs)).toEqual({
        ok: false,
        code: 'unsupported_parameter_set',
      });
    }
  });

  it('proves a merge whose outputs come back to the key, and refuses a mint', async () => {
    const core = await loadBackend(backend);
    const sk = randomDigest();
    const a = deriveNote(core, { sk, value: '300000', rho: randomDigest() });
    const b = deriveNote(core, { sk, value: '200000', rho: randomDigest() });
    const leaves = [a.commitment, b.commitment];
    const input = async (n: typeof a, index: number) => ({
      value: n.value,
      rho: n.rho,
      index,
      path: await core.treePathAsync(leaves, index),
    });
    const witness: TransitionWitness = {
      sk,
      inputs: [await input(a, 0), await input(b, 1)],
      outputs: ['500000', '0'],
      exit: '0',
      ctx: randomDigest(),
    };
    const { proof, publicInputs } = await core.proveTransition(witness);
    expect(proof[SET_BYTE]).toBe(17);
    expect(publicInputs.root).toBe(core.treeRoot(leaves));
    expect(await core.verifyTransition(proof, publicInputs)).toEqual({ ok: true });
    const found = recoverTransitionOutputs(core, sk, publicInputs);
    expect(found.map((o) => o.value)).toEqual(['500000', '0']);
    expect(recoverTransitionOutputs(core, randomDigest(), publicInputs)).toEqual([]);
    // Minting (outputs worth more than the inputs) and dust are refused before any proof.
    const refused = async (outputs: [string, string]) => {
      try {
        await core.proveTransition({ ...witness, outputs });
        return 'proved';
      } catch (error) {
        expect(error).toBeInstanceOf(CoreError);
        return (error as CoreError).code;
      }
    };
    expect(await refused(['500001', '0'])).toBe('values_not_conserved');
    expect(await refused(['499500', '500'])).toBe('output_below_minimum');
    // A dummy second input proves no membership; a split from one note.
    const split = await core.proveTransition({
      ...witness,
      inputs: [
        witness.inputs[0],
        { value: '0', rho: randomDigest(), index: 0, path: Array(32).fill(ZERO) },
      ],
      outputs: ['100000', '200000'],
    });
    expect(await core.verifyTransition(split.proof, split.publicInputs)).toEqual({ ok: true });
  }, 60_000);
});
