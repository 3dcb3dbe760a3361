// POST /proofs with a hand-over frame (application/octet-stream, scheme/handover-frame.ts) on the
// pool node (inject, no sockets): kept with the reference the JSON body gets — one proof, either
// spelling, one stored row — and checked by the same schema; every malformed frame and every field
// the JSON suite breaks is a stable 4xx with nothing stored; the frame parser reaches no other route.

import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';

import type { PrivStarkCore } from '../../src/core/index.js';
import { HandOverBodySchema } from '../../src/pool-node/handover-schema.js';
import {
  encodeHandOverFrame,
  HANDOVER_FRAME_HEADER_MAX_BYTES,
  HANDOVER_FRAME_LIMIT_BYTES,
  HANDOVER_FRAME_MEDIA_TYPE,
  MAX_PROOF_BYTES,
} from '../../src/scheme/index.js';
import { handOverBody, handOverFrame } from '../../testkit/bodies.js';
import type { Fixtures } from '../../testkit/fixtures.js';
import { expectRefusal, handOverNodes } from './helpers/handover-node.js';

describe('POST /proofs with a hand-over frame', () => {
  const harness = handOverNodes();
  const { node } = harness;
  let core: PrivStarkCore;
  let fx: Fixtures;
  beforeAll(() => {
    ({ core, fx } = harness);
  });

  /** `node()` with a poster of raw bytes as a frame (or as `type`). */
  async function frameNode(...args: Parameters<typeof node>) {
    const made = await node(...args);
    const postFrame = (bytes: Uint8Array, url = '/proofs', type = HANDOVER_FRAME_MEDIA_TYPE) =>
      made.app.inject({
        method: 'POST',
        url,
        payload: Buffer.from(bytes),
        headers: { 'content-type': type },
      });
    return { ...made, postFrame };
  }

  it('keeps a frame with the reference its JSON body gets; either spelling again is the same row (200); the twin: a flipped proof byte is 422, nothing kept', async () => {
    const { post, postFrame, store } = await frameNode();
    const p = fx.payments[0]!;
    const framed = await postFrame(handOverFrame(p));
    expect(framed.statusCode, framed.body).toBe(201);
    const { reference } = framed.json() as { reference: string };
    expect(reference).toBe(core.proofReference(p.proof, p.publicInputs).reference);
    const asJson = await post(handOverBody(p));
    expect(asJson.statusCode).toBe(200);
    expect(asJson.json()).toEqual(framed.json());
    expect((await postFrame(handOverFrame(p))).statusCode).toBe(200);
    expect(await store.proofCount()).toBe(1);

    const q = fx.payments[1]!;
    const { proof: _base64, ...fields } = handOverBody(q);
    const flipped = Uint8Array.from(q.proof);
    flipped[flipped.length >> 1]! ^= 1;
    const bad = await postFrame(encodeHandOverFrame(fields, flipped));
    expectRefusal(bad, 'flipped proof');
    expect(bad.json()).toMatchObject({ error: 'invalid_priv_stark_proof' });
    expect(await store.proofCount()).toBe(1);
    // The frame is a quarter smaller than the JSON body of the same hand-over.
    const jsonBytes = Buffer.byteLength(JSON.stringify(handOverBody(q)));
    expect(handOverFrame(q).length).toBeLessThan(jsonBytes * 0.76);
  });

  it('hostile frames (fast-check): the header broken as the JSON suite breaks bodies, or the bytes themselves; always a stable 4xx, nothing stored', async () => {
    const { app, postFrame, store } = await frameNode({
      handOver: { max: 1_000_000, timeWindowMs: 60_000 },
    });
    const p = fx.payments[1]!;
    const { proof: _base64, ...valid } = handOverBody(p);
    const names = Object.keys(valid);
    const wrongType = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double(),
      fc.string({ maxLength: 20 }),
    );
    const header = fc
      .array(
        fc.oneof(
          fc.record({ drop: fc.constantFrom(...names) }),
          fc.record({ set: fc.constantFrom(...names), value: wrongType }),
          fc.record({
            add: fc
              .string({ minLength: 1, maxLength: 12 })
              .filter(
                (k) =>
                  !names.includes(k) &&
                  !['proof', '__proto__', 'constructor', 'prototype'].includes(k),
              ),
            value: wrongType,
          }),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((mutations) => {
        const fields: Record<string, unknown> = { ...valid };
        for (const m of mutations) {
          if ('drop' in m) delete fields[m.drop];
          else if ('add' in m) fields[m.add] = m.value;
          else fields[m.set] = m.value;
        }
        return encodeHandOverFrame(fields, p.proof);
      });
    const whole = handOverFrame(p);
    const bytes = fc
      .tuple(fc.nat({ max: 600 }), fc.integer({ min: 0, max: 255 }), fc.boolean())
      .map(([at, byte, cut]) => {
        const copy = Uint8Array.from(whole);
        copy[at] = copy[at] === byte ? byte ^ 1 : byte;
        return cut ? copy.subarray(0, at + 1) : copy;
      });
    const proof = fc
      .uint8Array({ minLength: 1, maxLength: 256 })
      .map((junk) => encodeHandOverFrame(valid, junk));
    await fc.assert(
      fc.asyncProperty(fc.oneof(header, bytes, proof), async (frame) => {
        fc.pre(!Buffer.from(frame).equals(Buffer.from(whole)));
        const response = await postFrame(frame);
        // A byte changed in a field's text can still spell a valid hand-over of another payment
        // (another amount, say), which the proof then refuses: a 4xx either way.
        expectRefusal(response, Buffer.from(frame.subarray(0, 80)).toString('hex'));
        expect(await store.proofCount()).toBe(0);
      }),
      { numRuns: 300 },
    );
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await postFrame(whole)).statusCode).toBe(201);
  });

  it('sizes and routes: a frame over the limit is 413, a malformed one 400 invalid_payload, a frame to /transfers or /transitions 415', async () => {
    const { app, postFrame, store } = await frameNode();
    const p = fx.payments[2]!;
    const cases: [string, Promise<LightMyRequestResponse>, number, string][] = [
      [
        'a proof one byte over the limit (the decoder refuses it)',
        postFrame(
          Buffer.concat([handOverFrame(p), Buffer.alloc(MAX_PROOF_BYTES + 1 - p.proof.length)]),
        ),
        413,
        'payload_too_large',
      ],
      [
        "a frame over the route's body limit (never read whole)",
        postFrame(Buffer.concat([handOverFrame(p), Buffer.alloc(2 * MAX_PROOF_BYTES)])),
        413,
        'payload_too_large',
      ],
      [
        "a frame one byte over the frame limit, under the JSON body's (never read whole)",
        postFrame(Buffer.alloc(HANDOVER_FRAME_LIMIT_BYTES + 1)),
        413,
        'payload_too_large',
      ],
      ['not a frame', postFrame(Buffer.from('{"a":1}')), 400, 'invalid_payload'],
      ['an empty body', postFrame(new Uint8Array(0)), 400, 'invalid_payload'],
      [
        'a frame to /transfers',
        postFrame(handOverFrame(p), '/transfers'),
        415,
        'unsupported_media_type',
      ],
      [
        'a frame to /transitions',
        postFrame(handOverFrame(p), '/transitions'),
        415,
        'unsupported_media_type',
      ],
      [
        'a frame under another binary type',
        postFrame(handOverFrame(p), '/proofs', 'application/x-priv-stark'),
        415,
        'unsupported_media_type',
      ],
    ];
    for (const [what, pending, status, code] of cases) {
      const response = await pending;
      expectRefusal(response, what);
      expect(response.statusCode, what).toBe(status);
      expect((response.json() as { error: string }).error, what).toBe(code);
    }
    // No body at all: no content type, nothing sent — no parser and no schema reach it.
    const empty = await app.inject({ method: 'POST', url: '/proofs' });
    expectRefusal(empty, 'no body');
    expect(empty.statusCode).toBe(400);
    // At the frame limit exactly, the body is read and the decoder judges it (not a frame).
    const atLimit = await postFrame(Buffer.alloc(HANDOVER_FRAME_LIMIT_BYTES));
    expect((atLimit.json() as { error: string }).error).toBe('invalid_payload');
    expect(await store.proofCount()).toBe(0);
    // The twin: the frame itself, to its route.
    expect((await postFrame(handOverFrame(p))).statusCode).toBe(201);
  });

  it("a hand-over's fields at their schema's longest, every character escaped, fit a frame's header; such a frame is checked by the schema, never refused for its size", async () => {
    const { postFrame } = await frameNode();
    const p = fx.payments[3]!;
    const { proof: _base64, ...fields } = handOverBody(p);
    // A control character is the longest a character gets in JSON (6 bytes, \u0001).
    const longest = (name: string) =>
      '\u0001'.repeat(
        (HandOverBodySchema.properties as Record<string, { maxLength?: number }>)[name]!.maxLength!,
      );
    const widest = {
      ...fields,
      scheme: longest('scheme'),
      network: longest('network'),
      asset: longest('asset'),
      payTo: longest('payTo'),
      resourceId: longest('resourceId'),
      amount: '9'.repeat(32),
      expiry: Number.MAX_SAFE_INTEGER,
    };
    const header = Buffer.byteLength(JSON.stringify(widest));
    expect(header).toBeGreaterThan(5000);
    expect(header).toBeLessThanOrEqual(HANDOVER_FRAME_HEADER_MAX_BYTES);
    const reply = await postFrame(encodeHandOverFrame(widest, p.proof));
    expectRefusal(reply, 'the widest fields');
    // Refused for what the fields say (no such scheme), not for the frame's size.
    expect(reply.statusCode).not.toBe(413);
    expect((reply.json() as { error: string }).error).not.toBe('payload_too_large');
  });
});
