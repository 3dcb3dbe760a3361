// The checked-in golden spend proofs (test/fixtures/spend/, and set-2/ for the previous parameter
// set): the proof bytes and their public inputs in the facade's shape and in wire encoding.
// public.json names the change commitment and ctx as the payload does: commitment, context.

import { readFileSync } from 'node:fs';

import type { SpendPublicInputs } from '../../src/core/spend.js';

const FIXTURES = new URL('../fixtures/spend/', import.meta.url);

/** A golden proof: `dir` is '' for the current parameter set's, 'set-2/' for the previous one's. */
export function goldenProof(dir: '' | 'set-2/' = '') {
  const json = JSON.parse(readFileSync(new URL(`${dir}public.json`, FIXTURES), 'utf8')) as Record<
    string,
    string | number
  >;
  const inputs = {
    root: json.root,
    nullifier: json.nullifier,
    change: json.commitment,
    amount: json.amount,
    ctx: json.context,
  } as SpendPublicInputs;
  return {
    set: json.parameterSet as number,
    proof: new Uint8Array(readFileSync(new URL(`${dir}proof.bin`, FIXTURES))),
    inputs,
    encoded: new Uint8Array(Buffer.from(String(json.publicInputs), 'hex')),
  };
}
