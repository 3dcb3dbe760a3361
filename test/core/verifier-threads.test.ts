// The verification threads: real proofs verify, tampered ones and bad public inputs give a
// verdict with a code (never an exception), many at once are answered, and the workers stop.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore, VerifierThreads } from '../../src/core/index.js';
import { type Fixtures, fixtures } from '../../testkit/fixtures.js';
import { goldenProof } from '../helpers/golden-proof.js';
import { liveSpec } from '../http/helpers/requests.js';

describe('VerifierThreads', () => {
  let core: PrivStarkCore;
  let fx: Fixtures;
  let pool: VerifierThreads;
  beforeAll(async () => {
    core = await loadCore();
    fx = await fixtures(core, liveSpec('facilitator', 4, 2));
    pool = await VerifierThreads.start({ backend: core.backend, size: 2 });
  }, 300_000);
  afterAll(async () => {
    await pool.close();
  });

  it('agrees with the core on valid and invalid proofs', async () => {
    const p = fx.payments[0]!;
    expect(await pool.verify(p.proof, p.publicInputs)).toEqual({ ok: true });
    const flipped = new Uint8Array(p.proof);
    flipped[flipped.length >> 1]! ^= 1;
    const [mine, theirs] = [
      await pool.verify(flipped, p.publicInputs),
      await core.verifySpend(flipped, p.publicInputs),
    ];
    expect(mine).toEqual(theirs);
    expect(mine.ok).toBe(false);
    expect(await pool.verify(p.proof, fx.payments[2]!.publicInputs)).toMatchObject({ ok: false });
    expect(await pool.verify(new Uint8Array(3), p.publicInputs)).toMatchObject({ ok: false });
    expect(
      await pool.verify(p.proof, { ...p.publicInputs, root: 'nope' as `0x${string}` }),
    ).toEqual({ ok: false, code: 'invalid_hex' });
  });

  it('runs on the WebAssembly backend too', async () => {
    const wasm = await VerifierThreads.start({ backend: 'wasm', size: 1 });
    try {
      const p = fx.payments[1]!;
      expect(await wasm.verify(p.proof, p.publicInputs)).toEqual({ ok: true });
      expect(await wasm.verify(p.proof, fx.payments[3]!.publicInputs)).toMatchObject({ ok: false });
    } finally {
      await wasm.close();
    }
  });

  it('accepts the parameter sets it is given: a set-2 proof verifies by default and is refused when only set 3 is', async () => {
    const { proof, inputs } = goldenProof('set-2/');
    expect(await pool.verify(proof, inputs)).toEqual({ ok: true });
    for (const backend of ['native', 'wasm'] as const) {
      const only3 = await VerifierThreads.start({ backend, size: 1, acceptedParameterSets: [3] });
      try {
        expect(await only3.verify(proof, inputs)).toEqual({
          ok: false,
          code: 'unsupported_parameter_set',
        });
        const p = fx.payments[0]!;
        expect(await only3.verify(p.proof, p.publicInputs)).toEqual({ ok: true });
      } finally {
        await only3.close();
      }
    }
  });

  it('answers many verifications at once', async () => {
    const verdicts = await Promise.all(
      Array.from({ length: 24 }, (_, i) => fx.payments[i % fx.payments.length]!).map((p) =>
        pool.verify(p.proof, p.publicInputs),
      ),
    );
    expect(verdicts.every((v) => v.ok)).toBe(true);
  });
});
