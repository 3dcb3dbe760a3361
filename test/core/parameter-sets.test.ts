// The parameter sets a verifier accepts: the binary's known sets with their security figures
// (for /health), the default list (the prover's set and the previous one, for a deprecation
// window), and configuring it — on both backends, through the facade and the raw binding.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { RawBinding } from '../../src/core/binding.js';
import { loadNative } from '../../src/core/native.js';
import { loadWasm } from '../../src/core/wasm.js';
import { CoreError, type PrivStarkCore, loadBackend } from '../../src/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { goldenProof } from '../helpers/golden-proof.js';

const current = goldenProof();
const previous = goldenProof('set-2/');

const SET_3 = {
  id: 3,
  acceptedByDefault: true,
  prover: true,
  blowup: 32,
  queries: 33,
  queryGrindingBits: 18,
  conjecturedBits: 128,
  provenListDecodingBits: 100,
  provenUniqueDecodingBits: 49,
};
const SET_2 = {
  id: 2,
  acceptedByDefault: true,
  prover: false,
  blowup: 32,
  queries: 23,
  queryGrindingBits: 16,
  conjecturedBits: 128,
  provenListDecodingBits: 73,
  provenUniqueDecodingBits: 37,
};

describe.each(BACKENDS)('%s backend: accepted parameter sets', (backend) => {
  let core: PrivStarkCore;
  let raw: RawBinding;
  beforeAll(async () => {
    core = await loadBackend(backend);
    raw = backend === 'native' ? loadNative() : await loadWasm();
  });
  afterAll(() => {
    core.acceptParameterSets([3, 2]);
  });

  it('lists the known sets with their security figures, newest first', () => {
    expect(current.set).toBe(3);
    expect(previous.set).toBe(2);
    expect(core.parameterSets()).toEqual([
      { ...SET_3, accepted: true },
      { ...SET_2, accepted: true },
    ]);
    expect(core.acceptedParameterSets().map((set) => set.id)).toEqual([3, 2]);
    expect(core.parameterSets().filter((set) => set.prover)).toHaveLength(1);
  });

  it('accepts the prover set and the previous one by default', async () => {
    expect(await core.verifySpend(current.proof, current.inputs)).toEqual({ ok: true });
    expect(await core.verifySpend(previous.proof, previous.inputs)).toEqual({ ok: true });
    expect(raw.verifySpend(previous.proof, previous.encoded).length).toBe(0);
  });

  it('refuses the previous set once configured to accept the new one only, and back', async () => {
    expect(core.acceptParameterSets([3]).map((set) => set.id)).toEqual([3]);
    expect(core.parameterSets().map((set) => set.accepted)).toEqual([true, false]);
    expect(await core.verifySpend(previous.proof, previous.inputs)).toEqual({
      ok: false,
      code: 'unsupported_parameter_set',
    });
    expect(await core.verifySpend(current.proof, current.inputs)).toEqual({ ok: true });

    expect(core.acceptParameterSets([2]).map((set) => set.id)).toEqual([2]);
    expect(await core.verifySpend(current.proof, current.inputs)).toEqual({
      ok: false,
      code: 'unsupported_parameter_set',
    });
    expect(await core.verifySpend(previous.proof, previous.inputs)).toEqual({ ok: true });

    // Any order, duplicates ignored; normalised newest first.
    expect(core.acceptParameterSets([2, 3, 2]).map((set) => set.id)).toEqual([3, 2]);
    expect(await core.verifySpend(previous.proof, previous.inputs)).toEqual({ ok: true });
    expect(await core.verifySpend(current.proof, current.inputs)).toEqual({ ok: true });
  });

  it('the raw binding takes the accepted ids per call, sync and off thread', async () => {
    expect(raw.verifySpend(current.proof, current.encoded, Uint8Array.of(3)).length).toBe(0);
    expect(() => raw.verifySpend(previous.proof, previous.encoded, Uint8Array.of(3))).toThrow(
      /^unsupported_parameter_set: /,
    );
    await expect(
      raw.verifySpendAsync(previous.proof, previous.encoded, Uint8Array.of(3)),
    ).rejects.toThrow(/^unsupported_parameter_set: /);
    expect(
      (await raw.verifySpendAsync(previous.proof, previous.encoded, Uint8Array.of(2))).length,
    ).toBe(0);
    expect(() => raw.verifySpend(current.proof, current.encoded, new Uint8Array(0))).toThrow(
      /^invalid_length: /,
    );
    expect(Array.from(raw.acceptParameterSets(Uint8Array.of(2, 3)))).toEqual([3, 2]);
  });

  it('refuses unknown, retired and malformed configurations and keeps the previous one', () => {
    core.acceptParameterSets([3]);
    for (const ids of [[9], [1], [3, 200]]) {
      expect(() => core.acceptParameterSets(ids)).toThrow(CoreError);
      try {
        core.acceptParameterSets(ids);
      } catch (error) {
        expect((error as CoreError).code).toBe('unsupported_parameter_set');
      }
    }
    expect(() => core.acceptParameterSets([])).toThrow(
      expect.objectContaining({ code: 'invalid_length' }),
    );
    expect(() => core.acceptParameterSets(['3'] as unknown as number[])).toThrow(TypeError);
    expect(() => core.acceptParameterSets([256])).toThrow(RangeError);
    expect(() => core.acceptParameterSets([2.5])).toThrow(RangeError);
    expect(() => core.acceptParameterSets(3 as unknown as number[])).toThrow(TypeError);
    expect(core.acceptedParameterSets().map((set) => set.id)).toEqual([3]);
  });
});
