// The verdict cache (src/facilitator/verdict-cache.ts) in front of the real verifier, on a real
// spend proof: a valid proof checked again with the same bytes and inputs is answered from its kept
// verdict. Must-fail twins: any public input changed, or one byte of the proof, is verified anew and
// refused; a refusal is never kept; a verdict past its age or pushed out by newer ones is verified
// again. Through a running service, an inline payment posted to /verify then /settle (as stock
// middleware in the verify-then-settle flow does) is verified once. The proofs are the cached fixtures of the pool node's hand-over suite (test/server/).

import { beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore, type SpendPublicInputs } from '../../src/core/index.js';
import { VerdictCache, verdictKey } from '../../src/facilitator/index.js';
import { encodeHandOverFrame, HANDOVER_FRAME_MEDIA_TYPE } from '../../src/scheme/index.js';
import { handOverBody, handOverFrame } from '../../testkit/bodies.js';
import { fixtures } from '../../testkit/fixtures.js';
import { API_KEY, startStack } from '../../testkit/stack.js';
import { liveSpec, requestOf } from '../http/helpers/requests.js';

let core: PrivStarkCore;
let proof: Uint8Array;
let inputs: SpendPublicInputs;

/** A cache over the real verifier that counts the verifications it ran. */
function counted(options: ConstructorParameters<typeof VerdictCache>[1] = {}) {
  const calls = { n: 0 };
  const cache = new VerdictCache((p, i) => {
    calls.n++;
    return core.verifySpend(p, i);
  }, options);
  return { cache, calls };
}

beforeAll(async () => {
  core = await loadCore();
  const [payment] = (await fixtures(core, { seed: 'pool-node-handover', notes: 4 })).payments;
  proof = payment!.proof;
  inputs = payment!.publicInputs;
}, 120_000);

describe('the verdict cache', () => {
  it('answers a valid proof checked again from its kept verdict', async () => {
    const { cache, calls } = counted();
    expect(await cache.verify(proof, inputs)).toEqual({ ok: true });
    expect(await cache.verify(proof, { ...inputs })).toEqual({ ok: true });
    expect(await cache.verify(Uint8Array.from(proof), inputs)).toEqual({ ok: true });
    expect(calls.n).toBe(1);
    expect({ hits: cache.hits, misses: cache.misses, size: cache.size }).toEqual({
      hits: 2,
      misses: 1,
      size: 1,
    });
  });

  it('must-fail: any public input changed, or one proof byte, is verified anew and refused', async () => {
    const { cache, calls } = counted();
    await cache.verify(proof, inputs);
    const other = '0x0000000000000000000000000000000000000000000000000000000000000001';
    const changed: SpendPublicInputs[] = [
      { ...inputs, root: other },
      { ...inputs, nullifier: other },
      { ...inputs, change: other },
      { ...inputs, amount: (BigInt(inputs.amount) + 1n).toString() },
      { ...inputs, ctx: other },
    ];
    for (const pi of changed) expect((await cache.verify(proof, pi)).ok).toBe(false);
    const flipped = Uint8Array.from(proof);
    flipped[flipped.length - 100]! ^= 1;
    expect((await cache.verify(flipped, inputs)).ok).toBe(false);
    expect(calls.n).toBe(1 + changed.length + 1);
    expect(new Set(changed.map((pi) => verdictKey(proof, pi))).size).toBe(changed.length);
  });

  it('never keeps a refusal', async () => {
    const { cache, calls } = counted();
    const wrong = { ...inputs, amount: '1' };
    expect((await cache.verify(proof, wrong)).ok).toBe(false);
    expect((await cache.verify(proof, wrong)).ok).toBe(false);
    expect(calls.n).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('verifies again past the age a verdict is kept, and once newer ones pushed it out', async () => {
    let now = 1_000_000;
    const aged = counted({ ttlMs: 1000, clock: () => now });
    await aged.cache.verify(proof, inputs);
    now += 999;
    await aged.cache.verify(proof, inputs);
    now += 1;
    await aged.cache.verify(proof, inputs);
    expect(aged.calls.n).toBe(2);
    // Capacity one: a second valid proof pushes the first out.
    const [, second] = (await fixtures(core, { seed: 'pool-node-handover', notes: 4 })).payments;
    const full = counted({ capacity: 1 });
    await full.cache.verify(proof, inputs);
    await full.cache.verify(second!.proof, second!.publicInputs);
    await full.cache.verify(proof, inputs);
    expect(full.calls.n).toBe(3);
    expect(full.cache.size).toBe(1);
    expect(() => new VerdictCache(core.verifySpend, { capacity: 0 })).toThrow(RangeError);
  });
});

describe('the verdict cache in the running service', () => {
  it('an inline payment posted to /verify then /settle is verified once; a hand-over goes beside the cache', async () => {
    const fx = await fixtures(core, liveSpec('http-auth', 2, 1));
    const stack = await startStack(core);
    try {
      // The stack's checkpoint timer publishes the funded tree (every 100 ms).
      for (const note of fx.notes)
        await stack.service.ledger.deposit({ amount: note.value, pre: note.precommitment });
      await stack.settle();
      const post = (route: string) =>
        fetch(`${stack.facilitatorUrl}/${route}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(requestOf(fx.payments[0]!)),
        });
      const { verdicts } = stack.service;
      expect(await (await post('verify')).json()).toMatchObject({ isValid: true });
      expect({ hits: verdicts.hits, misses: verdicts.misses }).toEqual({ hits: 0, misses: 1 });
      expect(await (await post('settle')).json()).toMatchObject({ success: true });
      expect({ hits: verdicts.hits, misses: verdicts.misses }).toEqual({ hits: 1, misses: 1 });
      // A handed-over proof is verified beside the cache: its verdict is the stored row, never
      // asked for again, so the cache neither keys nor keeps it.
      const handOver = await fetch(`${stack.poolUrl}/proofs`, {
        method: 'POST',
        headers: { 'content-type': HANDOVER_FRAME_MEDIA_TYPE },
        body: handOverFrame(fx.payments[1]!) as Uint8Array<ArrayBuffer>,
      });
      expect(handOver.status, await handOver.clone().text()).toBe(201);
      expect({ hits: verdicts.hits, misses: verdicts.misses }).toEqual({ hits: 1, misses: 1 });
      // The twin: its flipped copy is still verified, and refused, beside the cache.
      const { proof: _base64, ...fields } = handOverBody(fx.payments[1]!);
      const flipped = Uint8Array.from(fx.payments[1]!.proof);
      flipped[100]! ^= 1;
      const refused = await fetch(`${stack.poolUrl}/proofs`, {
        method: 'POST',
        headers: { 'content-type': HANDOVER_FRAME_MEDIA_TYPE },
        body: encodeHandOverFrame(fields, flipped) as Uint8Array<ArrayBuffer>,
      });
      expect(((await refused.json()) as { error: string }).error).toBe('invalid_priv_stark_proof');
      expect({ hits: verdicts.hits, misses: verdicts.misses }).toEqual({ hits: 1, misses: 1 });
    } finally {
      await stack.close();
    }
  });
});
