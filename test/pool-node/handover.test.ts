// POST /proofs on the pool node under hostile input (inject, no sockets): whatever the body, type,
// size or method, a stable 4xx { error, message } — never a 5xx — nothing stored, and the node
// healthy afterwards; the per-client rate limit; the full store; CORS on that route only; logs
// without client address, proof, nullifier or reference.

import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';

import type { PrivStarkCore } from '../../src/core/index.js';
import { encodeProof, HANDOVER_BODY_LIMIT_BYTES, messageOf } from '../../src/scheme/index.js';
import { handOverBody } from '../../testkit/bodies.js';
import type { Fixtures } from '../../testkit/fixtures.js';
import { expectRefusal, handOverNodes, TOKEN } from './helpers/handover-node.js';

const SHOP = 'https://shop.example';

describe('POST /proofs', () => {
  const harness = handOverNodes();
  const { node } = harness;
  let core: PrivStarkCore;
  let fx: Fixtures;
  beforeAll(() => {
    ({ core, fx } = harness);
  });

  it('keeps a valid proof (201 with its reference), answers it again (200); the twin: a flipped proof is 422 and nothing is kept', async () => {
    const { post, store } = await node();
    const p = fx.payments[0]!;
    const first = await post(handOverBody(p));
    expect(first.statusCode, first.body).toBe(201);
    const { reference, expires } = first.json() as { reference: string; expires: number };
    expect(reference).toBe(core.proofReference(p.proof, p.publicInputs).reference);
    expect(Number.isSafeInteger(expires)).toBe(true);
    const again = await post(handOverBody(p));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ reference, expires });
    const flipped = Buffer.from(p.proof);
    flipped[flipped.length >> 1]! ^= 1;
    const bad = await post({ ...handOverBody(fx.payments[1]!), proof: flipped.toString('base64') });
    expectRefusal(bad, 'flipped proof');
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({
      error: 'invalid_priv_stark_proof',
      message: messageOf('invalid_priv_stark_proof'),
    });
    expect(await store.proofCount()).toBe(1);
  });

  it('hostile bodies (fast-check): always a stable 4xx { error, message }, nothing stored, the node healthy after', async () => {
    const { app, post, store } = await node({ handOver: { max: 1_000_000, timeWindowMs: 60_000 } });
    const valid = handOverBody(fx.payments[1]!);
    const fields = Object.keys(valid);
    const proof = String(valid.proof);
    const digestLike = fc.oneof(
      fc.constant(`0x${'ff'.repeat(32)}`), // non-canonical elements
      fc.constant(String(valid.root).toUpperCase()),
      fc.constant(String(valid.root).slice(2)),
      fc.constant(`${String(valid.root)}00`),
      fc.constant(String(valid.root).slice(0, -2)),
      fc.stringMatching(/^0x[0-9a-f]{0,70}$/),
    );
    const proofLike = fc.oneof(
      fc.constant(''),
      fc.constant('===='),
      fc.constant(`${proof.slice(0, -4)}====`),
      fc.constant(`${proof.slice(0, -1)}B`), // padding bits set: not canonical
      fc.constant(proof.replace(/\+/g, '-').replace(/\//g, '_')), // base64url
      fc.constant(` ${proof}`),
      fc.constant(`${proof}\n`),
      fc.constant(proof.slice(0, proof.length - 4)), // truncated proof, canonical
      fc.constant('A'.repeat(HANDOVER_BODY_LIMIT_BYTES)), // over the limit
      fc.uint8Array({ minLength: 1, maxLength: 512 }).map((bytes) => encodeProof(bytes)),
      fc.string({ maxLength: 64 }),
    );
    const wrongType = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double(),
      fc.constant([]),
      fc.constant({}),
      fc.string({ maxLength: 20 }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const mutation = fc.oneof(
      fc.record({ drop: fc.constantFrom(...fields) }),
      fc.record({
        add: fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !fields.includes(k)),
        value: wrongType,
      }),
      fc.record({ set: fc.constantFrom(...fields), value: wrongType }),
      fc.record({ set: fc.constantFrom('root', 'nullifier', 'commitment'), value: digestLike }),
      fc.record({ set: fc.constant('proof'), value: proofLike }),
      fc.record({
        set: fc.constant('amount'),
        value: fc.constantFrom('0', '-1', '1e3', '010000', '9999', ' 10000', '4611686018427387904'),
      }),
      fc.record({
        set: fc.constant('expiry'),
        value: fc.constantFrom(-1, 1.5, 0, 2 ** 53, '4102444800', 1),
      }),
      fc.record({
        set: fc.constantFrom('scheme', 'network', 'asset', 'payTo', 'resourceId'),
        value: fc.oneof(fc.string({ maxLength: 300 }), fc.constant('')),
      }),
    );
    const hostile = fc.oneof(
      fc.array(mutation, { minLength: 1, maxLength: 4 }).map((mutations) => {
        const body: Record<string, unknown> = { ...valid };
        for (const m of mutations) {
          if ('drop' in m) delete body[m.drop];
          else if ('add' in m) body[m.add] = m.value;
          else body[m.set] = m.value;
        }
        return body as unknown;
      }),
      wrongType,
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (body) => {
        // a mutation that happens to give back the valid body is no hostile input
        fc.pre(JSON.stringify(body) !== JSON.stringify(valid));
        const response = await post(body);
        expectRefusal(response, JSON.stringify(body).slice(0, 200));
        expect(await store.proofCount()).toBe(0);
      }),
      { numRuns: 300 },
    );
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await post(valid)).statusCode).toBe(201);
  });

  it('raw bodies, content types, sizes and methods: a stable 4xx each, nothing stored', async () => {
    const { app, post, store } = await node({ handOver: { max: 1_000_000, timeWindowMs: 60_000 } });
    const valid = JSON.stringify(handOverBody(fx.payments[2]!));
    const raw = (payload: string | Buffer, type?: string, method = 'POST') =>
      app.inject({
        method: method as 'POST',
        url: '/proofs',
        payload,
        headers: type === undefined ? {} : { 'content-type': type },
      });
    const cases: [string, Promise<LightMyRequestResponse>, number][] = [
      ['truncated JSON', raw(valid.slice(0, -1), 'application/json'), 400],
      ['empty body', raw('', 'application/json'), 400],
      ['not JSON', raw('proof=AAAA', 'application/json'), 400],
      ['prototype poisoning', raw('{"__proto__":{"polluted":1}}', 'application/json'), 400],
      [
        'constructor poisoning',
        raw('{"constructor":{"prototype":{"x":1}}}', 'application/json'),
        400,
      ],
      ['text/plain', raw(valid, 'text/plain'), 415],
      ['form', raw('a=1', 'application/x-www-form-urlencoded'), 415],
      ['multipart', raw('--x\r\n\r\n--x--', 'multipart/form-data; boundary=x'), 415],
      // A body of that type must be a hand-over frame (handover-frame.test.ts): JSON is not one.
      ['JSON as octet-stream', raw(Buffer.from(valid), 'application/octet-stream'), 400],
      ['no content type', raw(valid), 415],
      [
        'over the body limit',
        raw(
          JSON.stringify({
            ...handOverBody(fx.payments[2]!),
            pad: 'x'.repeat(HANDOVER_BODY_LIMIT_BYTES),
          }),
          'application/json',
        ),
        413,
      ],
      ['a JSON string', raw('"x"', 'application/json'), 400],
      ['a JSON array', raw('[]', 'application/json'), 400],
      ['null', raw('null', 'application/json'), 400],
      ['GET', raw('', undefined, 'GET'), 404],
      ['PUT', raw('{}', 'application/json', 'PUT'), 404],
      ['DELETE', raw('', undefined, 'DELETE'), 404],
      [
        'PATCH with a proof (over the default body limit)',
        raw(valid, 'application/json', 'PATCH'),
        413,
      ],
      ['OPTIONS without CORS', raw('', undefined, 'OPTIONS'), 404],
    ];
    for (const [what, pending, status] of cases) {
      const response = await pending;
      expectRefusal(response, what);
      expect(response.statusCode, what).toBe(status);
    }
    const sub = await app.inject({
      method: 'POST',
      url: '/proofs/x',
      payload: handOverBody(fx.payments[2]!),
    });
    expectRefusal(sub, '/proofs/x');
    expect(await store.proofCount()).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // the must-pass twin: the same body as JSON
    expect((await raw(valid, 'application/json')).statusCode).toBe(201);
    expect((await post(handOverBody(fx.payments[2]!))).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  it('rate-limits per client: 429 rate_limited with Retry-After; another client is counted apart', async () => {
    const { post, store } = await node({ handOver: { max: 3, timeWindowMs: 60_000 } });
    const [a, b] = ['198.51.100.7', '198.51.100.8'];
    const p = handOverBody(fx.payments[0]!);
    const statuses = async (address: string, n: number, body: unknown = p) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++)
        out.push((await post(body, { remoteAddress: address })).statusCode);
      return out;
    };
    // refused requests count too: one malformed, then two hand-overs
    expect(await statuses(a, 1, { nope: 1 })).toEqual([400]);
    expect(await statuses(a, 2)).toEqual([201, 200]);
    const limited = await post(p, { remoteAddress: a });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'rate_limited', message: messageOf('rate_limited') });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-limit']).toBeUndefined();
    // another client: its own three
    expect(await statuses(b, 4)).toEqual([200, 200, 200, 429]);
    expect(await store.proofCount()).toBe(1);
  });

  it('answers 503 proof_store_full with Retry-After when the store is full; a stored proof is still answered', async () => {
    const { post, store } = await node({}, { proofStoreCapacity: 1 });
    expect((await post(handOverBody(fx.payments[0]!))).statusCode).toBe(201);
    const full = await post(handOverBody(fx.payments[1]!));
    expect(full.statusCode).toBe(503);
    expect(full.json()).toEqual({
      error: 'proof_store_full',
      message: messageOf('proof_store_full'),
    });
    expect(Number(full.headers['retry-after'])).toBeGreaterThan(0);
    expect((await post(handOverBody(fx.payments[0]!))).statusCode).toBe(200);
    expect(await store.proofCount()).toBe(1);
  });

  it('answers 503 pool_unavailable (no 500) when the store fails mid-hand-over', async () => {
    const { post, store } = await node();
    expect((await post(handOverBody(fx.payments[0]!))).statusCode).toBe(201);
    await store.close();
    const down = await post(handOverBody(fx.payments[1]!));
    expect(down.statusCode).toBe(503);
    expect(Object.keys(down.json()).sort()).toEqual(['error', 'message']);
    expect(down.json().error).toBe('pool_unavailable');
  });

  it('CORS: the preflight answers only configured origins, the POST carries allow-origin, other routes unchanged', async () => {
    const { app, post } = await node({ corsOrigins: [SHOP] });
    const preflight = (origin: string, url = '/proofs') =>
      app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    const ok = await preflight(SHOP);
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(SHOP);
    expect(ok.headers['access-control-allow-methods']).toBe('POST');
    expect(ok.headers['access-control-allow-headers']).toBe('content-type');
    expect(ok.headers.vary).toBe('Origin');
    const evil = await preflight('https://evil.example');
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    // POST: allowed origin on success and on refusal, none for another origin
    const accepted = await post(handOverBody(fx.payments[0]!), { origin: SHOP });
    expect(accepted.statusCode).toBe(201);
    expect(accepted.headers['access-control-allow-origin']).toBe(SHOP);
    const refused = await post({ nope: 1 }, { origin: SHOP });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['access-control-allow-origin']).toBe(SHOP);
    const limitedNode = await node({
      corsOrigins: [SHOP],
      handOver: { max: 1, timeWindowMs: 60_000 },
    });
    await limitedNode.post({ nope: 1 }, { origin: SHOP });
    const limited = await limitedNode.post({ nope: 1 }, { origin: SHOP });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['access-control-allow-origin']).toBe(SHOP);
    // The page may read when to retry.
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.headers['access-control-expose-headers']).toBe('retry-after');
    const other = await post(handOverBody(fx.payments[0]!), { origin: 'https://evil.example' });
    expect(other.statusCode).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    // other routes: no preflight anywhere else, never on /deposit, GETs as before
    for (const url of ['/deposit', '/state', '/events'])
      expect((await preflight(SHOP, url)).statusCode, url).toBe(404);
    const deposit = await app.inject({
      method: 'POST',
      url: '/deposit',
      headers: { origin: SHOP, authorization: `Bearer ${TOKEN}` },
      payload: { amount: '1', pre: fx.payments[0]!.publicInputs.change },
    });
    expect(deposit.headers['access-control-allow-origin']).toBeUndefined();
    const state = await app.inject({ method: 'GET', url: '/state', headers: { origin: SHOP } });
    expect(state.headers['access-control-allow-origin']).toBe(SHOP);
    // and a node without CORS has no preflight and no allow-origin on /proofs
    const plain = await node();
    const noCors = await plain.app.inject({
      method: 'OPTIONS',
      url: '/proofs',
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    expect(noCors.statusCode).toBe(404);
    const posted = await plain.post(handOverBody(fx.payments[1]!), { origin: SHOP });
    expect(posted.statusCode).toBe(201);
    expect(posted.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("logs no client address, proof, nullifier, root, recipient or reference of the route's requests", async () => {
    const address = '203.0.113.77';
    const { post, lines } = await node({ handOver: { max: 4, timeWindowMs: 60_000 } });
    const p = fx.payments[3]!;
    const body = handOverBody(p);
    const accepted = await post(body, { remoteAddress: address });
    expect(accepted.statusCode).toBe(201);
    const { reference } = accepted.json() as { reference: string };
    await post(body, { remoteAddress: address });
    await post({ ...body, root: String(body.nullifier) }, { remoteAddress: address });
    await post({ ...body, proof: 'not base64!' }, { remoteAddress: address });
    expect((await post(body, { remoteAddress: address })).statusCode).toBe(429);
    const log = lines.join('');
    // the must-fail twin: every request was logged (one line per reply)
    expect(lines.filter((line) => line.includes('"msg":"reply"')).length).toBe(5);
    expect(log).toContain('/proofs');
    for (const secret of [
      address,
      reference,
      reference.slice(2),
      String(body.nullifier),
      String(body.nullifier).slice(2, 18),
      String(body.root).slice(2, 18),
      String(body.commitment).slice(2, 18),
      String(body.payTo),
      String(body.proof).slice(0, 40),
      String(body.proof).slice(1000, 1040),
    ]) {
      expect(log.includes(secret), secret.slice(0, 20)).toBe(false);
    }
  });
});
