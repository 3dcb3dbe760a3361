// The golden proofs are never regenerated once a parameter set has shipped: proofs of every
// accepted set must keep verifying through any upgrade of the proof crate or of Plonky3 (issue 23,
// part 5). This suite pins each file's SHA-256, so a regeneration is a deliberate, visible change
// of this list, and shows the pinned bytes verify on both backends today.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { decodeTransitionPublicInputs, loadBackend } from '../../src/core/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { goldenProof } from '../helpers/golden-proof.js';

const FIXTURES = new URL('../fixtures/', import.meta.url);

/** Each golden file with its pinned SHA-256 (hex), by parameter set. */
const PINNED: Readonly<Record<string, string>> = {
  // Spend, set 3 (the prover's) and set 2 (its deprecation window).
  'spend/proof.bin': 'c7858e555e748f44374ca43156f813afbb4e78dc7898b0d9474865b271bc7c37',
  'spend/public.json': 'ab60d891d9ebb888db5065cb48d7c12ba59f4db49bc6be20cf40457a3f345542',
  'spend/set-2/proof.bin': 'd1efb376f23c86a8d11320fbb47757010a26b512bd7563cc954671d110783155',
  'spend/set-2/public.json': 'a293b1143082ae85f68d812c89bdc9fa3c0274e753d1d8bdf4d846eb1bde2cba',
  // Transition, set 16 (made by the landed set-16 prover) and set 17 (the prover's).
  'transition/proof.bin': '6a44372792d2df4afedfc9b58438687bee83fce16505cd56c505099635cdb5f9',
  'transition/public.bin': 'd6c09baa0c35a3dc48052ba3c6c60a47828a53f46cd1681303bc3c8e2ce84baa',
  'transition/set-17/proof.bin': '73efdc156230812bcd01bf06406080a80b39a7a5986bb16d1908b9f70adeea84',
  'transition/set-17/public.bin':
    'd6c09baa0c35a3dc48052ba3c6c60a47828a53f46cd1681303bc3c8e2ce84baa',
};

const bytesOf = (path: string) => new Uint8Array(readFileSync(new URL(path, FIXTURES)));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('golden proofs', () => {
  it.each(Object.entries(PINNED))('%s is the pinned file', (path, digest) => {
    expect(sha256(bytesOf(path))).toBe(digest);
  });
});

describe.each(BACKENDS)('%s backend: the pinned bytes verify', (backend) => {
  it('spend sets 3 and 2, transition sets 16 and 17', async () => {
    const core = await loadBackend(backend);
    for (const dir of ['', 'set-2/'] as const) {
      const golden = goldenProof(dir);
      expect(await core.verifySpend(golden.proof, golden.inputs), dir).toEqual({ ok: true });
    }
    for (const dir of ['transition/', 'transition/set-17/']) {
      const inputs = decodeTransitionPublicInputs(bytesOf(`${dir}public.bin`));
      expect(await core.verifyTransition(bytesOf(`${dir}proof.bin`), inputs), dir).toEqual({
        ok: true,
      });
    }
  });
});
