// A wallet proves the newest transition set its pool node accepts, not simply the newest it knows
// (issue 23): it proves set 17; a pool node that refuses the proof and whose /health does not list
// 17 (narrowed with TRANSITION_PARAMETER_SETS, or of an older release that lists nothing and
// accepts 16 only) gets the same transition proven under the newest set it does accept, once,
// through the same transport, and the wallet's later transitions prove that set at once — kept in
// its store, so a new process (a one-shot CLI command) does too, reading /health first, and proves
// 17 again once the node lists it.
// Twins: a pool accepting 17 sees one proof of set 17; a refusal while /health lists 17 is not
// about the set and is not retried.

import { afterEach, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { PoolNodeError } from '../../src/pool-node/index.js';
import { storeHarness } from '../ledger/helpers/stores.js';
import { transitionStack, unspentValues } from './helpers/transition-stack.js';

/** Byte 5 of a proof's header: its parameter set. */
const setOf = (proof: string) => Buffer.from(proof, 'base64')[5];

describe('the transition set a wallet proves', () => {
  const harness = storeHarness('sqlite');
  const { startNode, fundedWallet, settle } = transitionStack(harness);
  afterEach(() => {
    harness.core().acceptTransitionParameterSets([17, 16]);
  });

  it('proves set 17 for a pool node that accepts it: one proof', async () => {
    const core = harness.core();
    const node = await startNode(undefined, core.acceptedTransitionParameterSets());
    const { wallet, capture } = await fundedWallet(node, [300_000n, 200_000n]);
    await wallet.mergeNotes();
    expect(capture.bodies.map((body) => setOf(body.proof))).toEqual([17]);
    await settle(node, [wallet]);
    expect(unspentValues(wallet)).toEqual(['500000']);
  });

  it('proves set 16 again for a pool node narrowed to 16, and for one that lists no sets', async () => {
    const core = harness.core();
    for (const listed of [true, false]) {
      core.acceptTransitionParameterSets([16]);
      const node = await startNode(
        undefined,
        listed ? core.acceptedTransitionParameterSets() : undefined,
      );
      const { wallet, capture } = await fundedWallet(node, [300_000n, 200_000n]);
      await wallet.mergeNotes();
      // The set-17 proof was refused; the same transition, proven under 16, applied.
      expect(capture.bodies.map((body) => setOf(body.proof))).toEqual([17, 16]);
      expect(capture.bodies[1]!.nullifiers).toEqual(capture.bodies[0]!.nullifiers);
      await settle(node, [wallet]);
      expect(unspentValues(wallet)).toEqual(['500000']);
      // The wallet remembers: its next transition proves 16 at once, one request.
      const note = wallet.notes().find((n) => !n.spent)!;
      await wallet.splitPrivately(note.commitment, 100_000n);
      expect(capture.bodies.map((body) => setOf(body.proof))).toEqual([17, 16, 16]);
    }
  });

  it('keeps the set it learnt in its store for the next process, and proves the newest again once the node lists it', async () => {
    const core = harness.core();
    core.acceptTransitionParameterSets([16]);
    const node = await startNode(undefined, core.acceptedTransitionParameterSets());
    const { wallet, capture, store } = await fundedWallet(node, [300_000n, 200_000n]);
    await wallet.mergeNotes();
    await settle(node, [wallet]);
    expect(capture.bodies.map((body) => setOf(body.proof))).toEqual([17, 16]);
    expect((await store.load()).state.transitionSet).toBe(16);
    // A new process opens the same store (a one-shot CLI command): the node's /health still lists
    // 16 only, so it proves 16 at once — no refused proof.
    const reopened = await Wallet.open({
      core,
      pool: node.url,
      store,
      handOverFetch: capture.fetch,
    });
    const note = reopened.notes().find((n) => !n.spent)!;
    await reopened.splitPrivately(note.commitment, 100_000n);
    expect(capture.bodies.map((body) => setOf(body.proof))).toEqual([17, 16, 16]);
    await settle(node, [reopened]);
    // The node upgrades and lists 17 beside 16: the next process reads /health, proves 17 at once
    // (not the older set's smaller crowd, though the node still takes 16) and forgets 16.
    core.acceptTransitionParameterSets([17, 16]);
    const upgraded = await startNode(node.store, core.acceptedTransitionParameterSets());
    const later = await Wallet.open({
      core,
      pool: upgraded.url,
      store,
      handOverFetch: capture.fetch,
    });
    await later.sync();
    await later.mergeNotes();
    expect(capture.bodies.map((body) => setOf(body.proof))).toEqual([17, 16, 16, 17]);
    expect((await store.load()).state.transitionSet).toBeUndefined();
    await settle(upgraded, [later]);
    expect(unspentValues(later)).toEqual(['500000']);
  });

  it('does not retry a refusal while /health lists the set it proved', async () => {
    const core = harness.core();
    // The node's /health says 17 and 16 while its verifier accepts 16 only: the refusal of the
    // set-17 proof cannot be about the set as far as the wallet can tell.
    const listed = core.acceptedTransitionParameterSets();
    core.acceptTransitionParameterSets([16]);
    const node = await startNode(undefined, listed);
    const { wallet, capture } = await fundedWallet(node, [300_000n, 200_000n]);
    const refused = await wallet.mergeNotes().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PoolNodeError);
    expect((refused as PoolNodeError).code).toBe('invalid_priv_stark_proof');
    expect(capture.bodies.map((body) => setOf(body.proof))).toEqual([17]);
    // Nothing applied: both deposits still unspent.
    await settle(node, [wallet]);
    expect(wallet.notes().filter((n) => !n.spent)).toHaveLength(2);
  });
});
