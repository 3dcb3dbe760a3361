// The transition parameter sets a verifier accepts (issue 23): set 17, which the prover makes, and
// set 16, verified beside it for transitions proven before the upgrade; their security figures
// (for the pool node's /health) and narrowing the list, on both backends. The golden proofs of
// both sets are the must-pass and must-fail twins of each configuration.

import { readFileSync } from 'node:fs';

import { afterEach, describe, expect, it } from 'vitest';

import {
  CoreError,
  decodeTransitionPublicInputs,
  deriveNote,
  loadBackend,
  type PrivStarkCore,
  randomDigest,
  type TransitionWitness,
} from '../../src/core/index.js';
import { BACKENDS } from '../helpers/backends.js';

const FIXTURES = new URL('../fixtures/transition/', import.meta.url);
const golden = (dir: string) => ({
  proof: new Uint8Array(readFileSync(new URL(`${dir}proof.bin`, FIXTURES))),
  inputs: decodeTransitionPublicInputs(
    new Uint8Array(readFileSync(new URL(`${dir}public.bin`, FIXTURES))),
  ),
});
const ZERO = `0x${'0'.repeat(64)}` as const;
/** Byte 5 of a proof's header: its parameter set. */
const SET_BYTE = 5;
const set16 = golden('');
const set17 = golden('set-17/');

const FIGURES = {
  acceptedByDefault: true,
  blowup: 32,
  queries: 33,
  queryGrindingBits: 18,
  conjecturedBits: 128,
  provenListDecodingBits: 100,
  provenUniqueDecodingBits: 49,
};

const verdicts = async (core: PrivStarkCore) => [
  await core.verifyTransition(set17.proof, set17.inputs),
  await core.verifyTransition(set16.proof, set16.inputs),
];

describe.each(BACKENDS)('%s backend: accepted transition parameter sets', (backend) => {
  afterEach(async () => {
    (await loadBackend(backend)).acceptTransitionParameterSets([17, 16]);
  });

  it('lists sets 17 (proved) and 16 with their security figures, both accepted by default', async () => {
    const core = await loadBackend(backend);
    expect(core.transitionParameterSets()).toEqual([
      { id: 17, prover: true, accepted: true, ...FIGURES },
      { id: 16, prover: false, accepted: true, ...FIGURES },
    ]);
    expect(await verdicts(core)).toEqual([{ ok: true }, { ok: true }]);
    // The spend sets are another list: no transition set among them.
    expect(core.parameterSets().map((set) => set.id)).toEqual([3, 2]);
  });

  it('narrowed to 17, refuses set-16 transitions and still verifies set 17', async () => {
    const core = await loadBackend(backend);
    expect(core.acceptTransitionParameterSets([17]).map((set) => set.id)).toEqual([17]);
    expect(core.acceptedTransitionParameterSets().map((set) => set.id)).toEqual([17]);
    expect(await verdicts(core)).toEqual([
      { ok: true },
      { ok: false, code: 'unsupported_parameter_set' },
    ]);
    // The spend verifier's list is untouched.
    expect(core.acceptedParameterSets().map((set) => set.id)).toEqual([3, 2]);
    // And back: the default list verifies both again.
    core.acceptTransitionParameterSets([16, 17, 16]);
    expect(core.acceptedTransitionParameterSets().map((set) => set.id)).toEqual([17, 16]);
    expect(await verdicts(core)).toEqual([{ ok: true }, { ok: true }]);
  });

  it('proves the set asked for: 16 for an older pool node, the newest by default', async () => {
    const core = await loadBackend(backend);
    const sk = randomDigest();
    const a = deriveNote(core, { sk, value: '300000', rho: randomDigest() });
    const leaves = [a.commitment, randomDigest()];
    const dummy = { value: '0', rho: randomDigest(), index: 0, path: Array(32).fill(ZERO) };
    const witness: TransitionWitness = {
      sk,
      inputs: [
        { value: a.value, rho: a.rho, index: 0, path: await core.treePathAsync(leaves, 0) },
        dummy,
      ],
      outputs: ['100000', '200000'],
      exit: '0',
      ctx: randomDigest(),
    };
    const older = await core.proveTransition(witness, { parameterSet: 16 });
    expect(older.proof[SET_BYTE]).toBe(16);
    expect(await core.verifyTransition(older.proof, older.publicInputs)).toEqual({ ok: true });
    const newest = await core.proveTransition(witness, { parameterSet: undefined });
    expect(newest.proof[SET_BYTE]).toBe(17);
    expect(newest.publicInputs).toEqual(older.publicInputs);
    // Not a transition set: refused with its code; not an id at all: refused before the binding.
    const refused = await core.proveTransition(witness, { parameterSet: 3 }).catch((e) => e);
    expect(refused).toBeInstanceOf(CoreError);
    expect((refused as CoreError).code).toBe('unsupported_parameter_set');
    await expect(core.proveTransition(witness, { parameterSet: 256 })).rejects.toThrow(RangeError);
  });

  it('refuses a spend set, an unknown id and an empty list, and keeps its list', async () => {
    const core = await loadBackend(backend);
    for (const [ids, code] of [
      [[3], 'unsupported_parameter_set'],
      [[18], 'unsupported_parameter_set'],
      [[], 'invalid_length'],
    ] as const) {
      let thrown: unknown;
      try {
        core.acceptTransitionParameterSets(ids);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CoreError);
      expect((thrown as CoreError).code).toBe(code);
    }
    expect(() => core.acceptTransitionParameterSets([256])).toThrow(RangeError);
    expect(core.acceptedTransitionParameterSets().map((set) => set.id)).toEqual([17, 16]);
  });
});
