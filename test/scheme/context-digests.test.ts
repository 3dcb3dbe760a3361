// ctx of recent payment contexts is remembered, keyed by every field: a request always gets the
// digest the core computes for its own fields, whatever came before it.

import { beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PaymentContext, type PrivStarkCore } from '../../src/core/index.js';
import { ContextDigests } from '../../src/scheme/index.js';

describe('ContextDigests', () => {
  let core: PrivStarkCore;
  let base: PaymentContext;
  beforeAll(async () => {
    core = await loadCore();
    base = {
      scheme: 'priv-stark/v1',
      network: 'shielded:devnet',
      asset: 'dUSD',
      payTo: core.encodeAddress(core.parseDigest(`0x${'07'.repeat(8)}${'00'.repeat(24)}`)),
      amount: '10000',
      resourceId: 'GET /weather',
      expiry: 1_956_528_000,
    };
  });

  function counted(max?: number) {
    let calls = 0;
    const digests = new ContextDigests((context) => {
      calls++;
      return core.contextDigest(context);
    }, max);
    return { digests, calls: () => calls };
  }

  it("computes a context once while it is remembered, and gives the core's digest", () => {
    const { digests, calls } = counted();
    expect(digests.of(base)).toBe(core.contextDigest(base));
    expect(digests.of({ ...base })).toBe(core.contextDigest(base));
    expect(calls()).toBe(1);
  });

  it('gives every changed field its own digest', () => {
    const { digests, calls } = counted();
    digests.of(base);
    const variants: PaymentContext[] = [
      { ...base, scheme: 'priv-stark/v2' },
      { ...base, network: 'shielded:other' },
      { ...base, asset: 'dEUR' },
      {
        ...base,
        payTo: core.encodeAddress(core.parseDigest(`0x${'08'.repeat(8)}${'00'.repeat(24)}`)),
      },
      { ...base, amount: '10001' },
      { ...base, resourceId: 'GET /weather2' },
      { ...base, resourceId: '' },
      { ...base, expiry: base.expiry + 60 },
    ];
    for (const variant of variants) expect(digests.of(variant)).toBe(core.contextDigest(variant));
    expect(calls()).toBe(1 + variants.length);
    expect(new Set(variants.map((v) => digests.of(v))).size).toBe(variants.length);
  });

  it('never confuses contexts whose fields only differ in where one ends and the next begins', () => {
    const { digests } = counted();
    const a: PaymentContext = { ...base, asset: 'dUSD\u0000x', resourceId: 'r' };
    const b: PaymentContext = {
      ...base,
      asset: 'dUSD',
      payTo: `x\u0000${base.payTo}`,
      resourceId: 'r',
    };
    const c: PaymentContext = { ...base, asset: 'dUSD","x', resourceId: 'r' };
    expect(digests.of(a)).toBe(core.contextDigest(a));
    // b has an invalid payTo for an address but is still a string the hash takes.
    expect(digests.of(b)).toBe(core.contextDigest(b));
    expect(digests.of(c)).toBe(core.contextDigest(c));
    expect(digests.size).toBe(3);
  });

  it('remembers at most its bound, oldest out first', () => {
    const { digests, calls } = counted(4);
    const at = (i: number): PaymentContext => ({ ...base, expiry: base.expiry + 60 * i });
    for (let i = 0; i < 6; i++) digests.of(at(i));
    expect(digests.size).toBe(4);
    expect(calls()).toBe(6);
    digests.of(at(5));
    digests.of(at(2));
    expect(calls()).toBe(6);
    digests.of(at(0));
    expect(calls()).toBe(7);
    expect(digests.of(at(0))).toBe(core.contextDigest(at(0)));
  });

  it('remembers nothing when the core refuses the fields', () => {
    const { digests, calls } = counted();
    const bad: PaymentContext = { ...base, amount: '-1' };
    expect(() => digests.of(bad)).toThrow();
    expect(() => digests.of(bad)).toThrow();
    expect(calls()).toBe(2);
    expect(digests.size).toBe(0);
  });
});
