// Runs in the browser (bundled by esbuild for test/e2e/browser.test.ts): the WebAssembly core behind
// the same facade as in Node, a note in a small tree rebuilt with the wallet's LocalTree, a spend
// proof for a payment context, its verification, and a tampered twin that must fail.

import { createCore } from '../../../src/core/create-core.js';
import { loadWasm } from '../../../src/core/wasm.js';
import { randomDigest, randomNote, spendWitness } from '../../../src/core/witness.js';
import { LocalTree } from '../../../src/client/tree.js';

async function run() {
  const raw = await loadWasm(new URL('/priv_stark.wasm', location.href));
  const core = createCore(raw, 'wasm');
  const note = randomNote(core, '500000');
  const leaves = [randomDigest(), note.commitment, randomDigest()];
  const tree = new LocalTree(core);
  tree.append(leaves);
  const ctx = core.contextDigest({
    scheme: 'priv-stark/v1',
    network: 'shielded:devnet',
    asset: 'dUSD',
    payTo: core.encodeAddress(randomDigest()),
    amount: '10000',
    resourceId: 'GET /weather',
    expiry: 1_900_000_020,
  });
  const witness = await spendWitness(core, { note, leaves, index: 1, amount: '10000', ctx });
  const samePath = JSON.stringify(witness.path) === JSON.stringify(tree.path(1));
  const started = performance.now();
  const { proof, publicInputs } = await core.proveSpend(witness);
  const proveMs = performance.now() - started;
  const verified = await core.verifySpend(proof, publicInputs);
  const tampered = await core.verifySpend(proof, { ...publicInputs, amount: '10001' });
  return {
    backend: core.backend,
    userAgent: navigator.userAgent,
    samePath,
    rootMatches: publicInputs.root === tree.root(),
    nullifierMatches: publicInputs.nullifier === note.nullifier,
    proofBytes: proof.length,
    proveMs,
    verified,
    tampered,
  };
}

(globalThis as unknown as { result: Promise<unknown> }).result = run().catch((error: unknown) => ({
  error: String(error),
}));
