// Proofs of forged traces whose claimed amount is outside 0 < amount < 2^62 (p − 1, and p: the
// field's −1 and 0; see crates/proof/tests/amount_range.rs). Each is a valid STARK for the
// field-level statement, so only the amount check stands between it and a mint: every path
// refuses it with amount_out_of_range — the raw binding (sync and off-thread) and the facade,
// on both backends. The golden honest proof is the must-pass twin.

import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import type { Backend, RawBinding } from '../../src/core/binding.js';
import { loadNative } from '../../src/core/native.js';
import { loadWasm } from '../../src/core/wasm.js';
import { type SpendPublicInputs, loadBackend } from '../../src/index.js';
import { BACKENDS } from '../helpers/backends.js';

interface ForgedEntry {
  readonly name: string;
  readonly amount: string;
  readonly publicInputs: string;
  readonly proof: string;
}

const fixtures = new URL('../fixtures/spend/', import.meta.url);
const forged = JSON.parse(readFileSync(new URL('forged.json', fixtures), 'utf8')) as ForgedEntry[];
const proofOf = (entry: { proof: string }) => new Uint8Array(readFileSync(new URL(entry.proof, fixtures)));
const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

function hexDigest(encoded: Uint8Array, offset: number): SpendPublicInputs['root'] {
  return `0x${Buffer.from(encoded.subarray(offset, offset + 32)).toString('hex')}` as SpendPublicInputs['root'];
}

const raw = async (backend: Backend): Promise<RawBinding> => (backend === 'native' ? loadNative() : loadWasm());

describe.each(BACKENDS)('%s backend: forged amounts', (backend) => {
  it('has forged fixtures for an amount in [2^62, p) and one at p', () => {
    expect(forged.map((entry) => BigInt(entry.amount))).toEqual([2n ** 64n - 2n ** 32n, 2n ** 64n - 2n ** 32n + 1n]);
  });

  it('the raw binding refuses them, on the calling thread and off it', async () => {
    const binding = await raw(backend);
    for (const entry of forged) {
      const [proof, inputs] = [proofOf(entry), bytes(entry.publicInputs)];
      expect(() => binding.verifySpend(proof, inputs), entry.name).toThrow(/^amount_out_of_range: /);
      await expect(binding.verifySpendAsync(proof, inputs), entry.name).rejects.toThrow(/^amount_out_of_range: /);
    }
    // Must-pass twin: the golden honest proof.
    const golden = JSON.parse(readFileSync(new URL('public.json', fixtures), 'utf8')) as { publicInputs: string };
    expect(binding.verifySpend(proofOf({ proof: 'proof.bin' }), bytes(golden.publicInputs)).length).toBe(0);
  });

  it('the facade answers them with a verdict', async () => {
    const core = await loadBackend(backend);
    for (const entry of forged) {
      const encoded = bytes(entry.publicInputs);
      const inputs: SpendPublicInputs = {
        root: hexDigest(encoded, 0),
        nullifier: hexDigest(encoded, 32),
        change: hexDigest(encoded, 64),
        amount: entry.amount,
        ctx: hexDigest(encoded, 104),
      };
      expect(await core.verifySpend(proofOf(entry), inputs)).toEqual({ ok: false, code: 'amount_out_of_range' });
    }
  });
});
