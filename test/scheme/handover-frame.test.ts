// The hand-over frame (scheme/handover-frame.ts): the bytes of the layout written out by hand as a
// vector, round trips of any fields and proof, every refusal beside the frame that passes, sizes at
// the byte, and a decoder that never throws on any bytes.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  decodeHandOverFrame,
  encodeHandOverFrame,
  HANDOVER_FRAME_HEADER_MAX_BYTES,
  HANDOVER_FRAME_LIMIT_BYTES,
  isHandOverFrame,
  MAX_PROOF_BYTES,
} from '../../src/scheme/index.js';

/** A frame spelled out byte by byte: magic, version, header length, header, proof. */
function frameOf(header: string | Uint8Array, proof: Uint8Array, version = 1): Uint8Array {
  const head = typeof header === 'string' ? new TextEncoder().encode(header) : header;
  return Uint8Array.from([
    0x00,
    0x50,
    0x53,
    0x48,
    version,
    head.length >> 8,
    head.length & 0xff,
    ...head,
    ...proof,
  ]);
}

const PROOF = Uint8Array.from([1, 2, 3, 250]);

describe('the hand-over frame', () => {
  it('encodes the layout exactly (a vector written by hand) and decodes it back', () => {
    const frame = encodeHandOverFrame({ amount: '10000', expiry: 60 }, PROOF);
    const header = '{"amount":"10000","expiry":60}';
    expect(Buffer.from(frame).toString('hex')).toBe(
      `0050534801001e${Buffer.from(header).toString('hex')}010203fa`,
    );
    const decoded = decodeHandOverFrame(frame);
    expect(decoded).toEqual({ ok: true, fields: { amount: '10000', expiry: 60 }, proof: PROOF });
    expect(isHandOverFrame(frame)).toBe(true);
    // The twin: JSON text never starts as a frame.
    expect(isHandOverFrame(new TextEncoder().encode(header))).toBe(false);
  });

  it('round-trips any flat fields and any proof up to the limit (fast-check)', () => {
    const value = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    fc.assert(
      fc.property(
        fc.dictionary(
          fc
            .string({ minLength: 1, maxLength: 12 })
            .filter((k) => !['proof', '__proto__', 'constructor', 'prototype'].includes(k)),
          value,
          { maxKeys: 12 },
        ),
        fc.uint8Array({ minLength: 1, maxLength: 2048 }),
        (fields, proof) => {
          const decoded = decodeHandOverFrame(encodeHandOverFrame(fields, proof));
          expect(decoded.ok).toBe(true);
          if (!decoded.ok) return;
          expect(decoded.fields).toEqual(fields);
          expect(Buffer.from(decoded.proof).equals(Buffer.from(proof))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses each malformed frame with its reason; the same frame made right passes', () => {
    const header = '{"payTo":"x"}';
    const cases: [string, Uint8Array, 'invalid_payload' | 'payload_too_large'][] = [
      ['empty', new Uint8Array(0), 'invalid_payload'],
      ['the prefix cut short', frameOf(header, PROOF).subarray(0, 6), 'invalid_payload'],
      [
        'another magic',
        Uint8Array.from([1, ...frameOf(header, PROOF).subarray(1)]),
        'invalid_payload',
      ],
      ['version 0', frameOf(header, PROOF, 0), 'invalid_payload'],
      ['version 2', frameOf(header, PROOF, 2), 'invalid_payload'],
      ['a header of 1 byte', frameOf('1', PROOF), 'invalid_payload'],
      [
        'a header length past the end',
        frameOf(header, new Uint8Array(0)).subarray(0, 10),
        'invalid_payload',
      ],
      ['no proof', frameOf(header, new Uint8Array(0)), 'invalid_payload'],
      [
        'a header not UTF-8',
        frameOf(Uint8Array.from([0x7b, 0xff, 0x7d]), PROOF),
        'invalid_payload',
      ],
      ['a header with a byte-order mark', frameOf(`\ufeff${header}`, PROOF), 'invalid_payload'],
      ['a header not JSON', frameOf('{payTo:1}', PROOF), 'invalid_payload'],
      ['a JSON array', frameOf('["x"]', PROOF), 'invalid_payload'],
      ['a JSON string', frameOf('"xy"', PROOF), 'invalid_payload'],
      ['null', frameOf('null', PROOF), 'invalid_payload'],
      ['a nested object', frameOf('{"payTo":{"a":1}}', PROOF), 'invalid_payload'],
      ['a nested array', frameOf('{"payTo":[1]}', PROOF), 'invalid_payload'],
      ['a proof in the header', frameOf('{"proof":"AAAA"}', PROOF), 'invalid_payload'],
      ['__proto__', frameOf('{"__proto__":1}', PROOF), 'invalid_payload'],
      ['constructor', frameOf('{"constructor":1}', PROOF), 'invalid_payload'],
      [
        'a header over the limit',
        frameOf(`{"a":"${'x'.repeat(HANDOVER_FRAME_HEADER_MAX_BYTES)}"}`, PROOF),
        'invalid_payload',
      ],
      [
        'a proof over the limit',
        frameOf(header, new Uint8Array(MAX_PROOF_BYTES + 1)),
        'payload_too_large',
      ],
      [
        'a frame over the limit',
        new Uint8Array(HANDOVER_FRAME_LIMIT_BYTES + 1),
        'payload_too_large',
      ],
    ];
    for (const [what, frame, reason] of cases)
      expect(decodeHandOverFrame(frame), what).toEqual({ ok: false, reason });
    // The twins at the limits: the longest header and the longest proof pass.
    const longest = `{"a":"${'x'.repeat(HANDOVER_FRAME_HEADER_MAX_BYTES - 8)}"}`;
    expect(new TextEncoder().encode(longest).length).toBe(HANDOVER_FRAME_HEADER_MAX_BYTES);
    const full = frameOf(longest, new Uint8Array(MAX_PROOF_BYTES));
    expect(full.length).toBe(HANDOVER_FRAME_LIMIT_BYTES);
    expect(decodeHandOverFrame(full).ok).toBe(true);
    expect(decodeHandOverFrame(frameOf(header, PROOF)).ok).toBe(true);
  });

  it('never throws on any bytes, nor on any change to a valid frame (fast-check)', () => {
    const valid = encodeHandOverFrame({ payTo: 'pstark1x', amount: '10000' }, PROOF);
    const mutated = fc
      .tuple(
        fc.nat({ max: valid.length - 1 }),
        fc.integer({ min: 0, max: 255 }),
        fc.nat({ max: valid.length }),
      )
      .map(([at, byte, cut]) => {
        const copy = Uint8Array.from(valid);
        copy[at] = byte;
        return copy.subarray(0, Math.max(cut, at + 1));
      });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 256 }), mutated), (bytes) => {
        const decoded = decodeHandOverFrame(bytes);
        if (!decoded.ok) expect(['invalid_payload', 'payload_too_large']).toContain(decoded.reason);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses to encode a frame that could not be decoded', () => {
    expect(() => encodeHandOverFrame({}, new Uint8Array(0))).toThrow(RangeError);
    expect(() => encodeHandOverFrame({}, new Uint8Array(MAX_PROOF_BYTES + 1))).toThrow(RangeError);
    expect(() => encodeHandOverFrame({ proof: 'AAAA' }, PROOF)).toThrow(RangeError);
    expect(() =>
      encodeHandOverFrame({ a: 'x'.repeat(HANDOVER_FRAME_HEADER_MAX_BYTES) }, PROOF),
    ).toThrow(RangeError);
    // The twin: the same fields within the limits encode.
    expect(encodeHandOverFrame({ a: 'x' }, new Uint8Array(MAX_PROOF_BYTES)).length).toBeGreaterThan(
      MAX_PROOF_BYTES,
    );
  });
});
