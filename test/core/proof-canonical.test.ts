// One encoding per proof, and the transition's public-input rules at every entry point, through
// both backends (issue 23, part 6; the Rust side is crates/proof/tests/canonical.rs and
// tests/transition.rs). Postcard decodes a padded varint (a length of 1 written `81 00`) to the
// same proof and the transcript absorbs values, not bytes, so without the canonical-encoding
// check a padded copy of a valid proof would verify under another compact-payment reference:
// each padded golden proof (spend and transition) is refused with malformed_proof by the raw
// binding (sync and off-thread) and the facade, and the originals are the must-pass twins. The
// transition rules the AIR does not prove (exit < 2^62, nf₁ ≠ nf₂) are refused with their codes
// by every transition entry point: an exit of p + 50,000 aliases the golden proof's 50,000.

import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import type { Backend, RawBinding } from '../../src/core/binding.js';
import { loadNative } from '../../src/core/native.js';
import { decodeTransitionPublicInputs } from '../../src/core/transition.js';
import { loadWasm } from '../../src/core/wasm.js';
import { loadBackend } from '../../src/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { goldenProof } from '../helpers/golden-proof.js';

/** The first byte of the body (after the 6-byte header): the trace commitment's cap length, 1. */
const PADDED_OFFSET = 6;
/** The Goldilocks modulus p. */
const MODULUS = 2n ** 64n - 2n ** 32n + 1n;

function padded(proof: Uint8Array): Uint8Array {
  const value = proof[PADDED_OFFSET]!;
  const out = new Uint8Array(proof.length + 1);
  out.set(proof.subarray(0, PADDED_OFFSET));
  out.set([value | 0x80, 0x00], PADDED_OFFSET);
  out.set(proof.subarray(PADDED_OFFSET + 1), PADDED_OFFSET + 2);
  return out;
}

const TRANSITION = new URL('../fixtures/transition/', import.meta.url);
const transition = {
  proof: new Uint8Array(readFileSync(new URL('proof.bin', TRANSITION))),
  encoded: new Uint8Array(readFileSync(new URL('public.bin', TRANSITION))),
};
const spend = goldenProof();

/** The transition's encoded public inputs with another exit (u64 LE at byte 160). */
function withExit(exit: bigint): Uint8Array {
  const out = transition.encoded.slice();
  new DataView(out.buffer).setBigUint64(160, exit, true);
  return out;
}

/** The transition's encoded public inputs with nf₂ = nf₁. */
function withEqualNullifiers(): Uint8Array {
  const out = transition.encoded.slice();
  out.copyWithin(64, 32, 64);
  return out;
}

const raw = async (backend: Backend): Promise<RawBinding> =>
  backend === 'native' ? loadNative() : loadWasm();

describe.each(BACKENDS)('%s backend: one encoding per proof', (backend) => {
  it('pads a one-byte length', () => {
    expect(spend.proof[PADDED_OFFSET]).toBe(1);
    expect(transition.proof[PADDED_OFFSET]).toBe(1);
    expect(padded(spend.proof).length).toBe(spend.proof.length + 1);
  });

  it('the raw binding refuses a padded spend proof and verifies the original', async () => {
    const binding = await raw(backend);
    const twin = padded(spend.proof);
    expect(() => binding.verifySpend(twin, spend.encoded)).toThrow(/^malformed_proof: /);
    expect(() => binding.verifySpend(twin, spend.encoded, new Uint8Array([spend.set]))).toThrow(
      /^malformed_proof: /,
    );
    await expect(binding.verifySpendAsync(twin, spend.encoded)).rejects.toThrow(
      /^malformed_proof: /,
    );
    expect(binding.verifySpend(spend.proof, spend.encoded).length).toBe(0);
    expect((await binding.verifySpendAsync(spend.proof, spend.encoded)).length).toBe(0);
  });

  it('the raw binding refuses a padded transition proof and verifies the original', async () => {
    const binding = await raw(backend);
    const twin = padded(transition.proof);
    expect(() => binding.verifyTransition(twin, transition.encoded)).toThrow(/^malformed_proof: /);
    await expect(binding.verifyTransitionAsync(twin, transition.encoded)).rejects.toThrow(
      /^malformed_proof: /,
    );
    expect(binding.verifyTransition(transition.proof, transition.encoded).length).toBe(0);
    expect((await binding.verifyTransitionAsync(transition.proof, transition.encoded)).length).toBe(
      0,
    );
  });

  it('the facade answers padded proofs with malformed_proof', async () => {
    const core = await loadBackend(backend);
    const inputs = decodeTransitionPublicInputs(transition.encoded);
    expect(await core.verifySpend(padded(spend.proof), spend.inputs)).toEqual({
      ok: false,
      code: 'malformed_proof',
    });
    expect(await core.verifySpend(spend.proof, spend.inputs)).toEqual({ ok: true });
    expect(await core.verifyTransition(padded(transition.proof), inputs)).toEqual({
      ok: false,
      code: 'malformed_proof',
    });
    expect(await core.verifyTransition(transition.proof, inputs)).toEqual({ ok: true });
  });
});

describe.each(BACKENDS)('%s backend: transition public-input rules', (backend) => {
  it('every transition entry point refuses an exit from 2^62 on and equal nullifiers', async () => {
    const binding = await raw(backend);
    const core = await loadBackend(backend);
    const cases: [Uint8Array, string][] = [
      [withExit(MODULUS + 50_000n), 'amount_out_of_range'],
      [withExit(2n ** 62n), 'amount_out_of_range'],
      [withExit(MODULUS - 1n), 'amount_out_of_range'],
      [withEqualNullifiers(), 'nullifiers_not_distinct'],
    ];
    for (const [encoded, code] of cases) {
      const pattern = new RegExp(`^${code}: `);
      expect(() => binding.verifyTransition(transition.proof, encoded)).toThrow(pattern);
      await expect(binding.verifyTransitionAsync(transition.proof, encoded)).rejects.toThrow(
        pattern,
      );
    }
    // The facade encodes the exit as any u64 and leaves both rules to the core.
    const inputs = decodeTransitionPublicInputs(transition.encoded);
    expect(
      await core.verifyTransition(transition.proof, {
        ...inputs,
        exit: (MODULUS + 50_000n).toString(),
      }),
    ).toEqual({ ok: false, code: 'amount_out_of_range' });
    expect(await core.verifyTransition(transition.proof, inputs)).toEqual({ ok: true });
  });
});
