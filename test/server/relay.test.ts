// The merchant's hand-over relay (priv-stark/server, issue 25 part 1) on real loopback listeners:
// stock express with the relay in one line, in front of a real pool node over a funded ledger.
// It forwards the body byte for byte under the merchant's key and nothing of the payer's request,
// JSON or a hand-over frame alike;
// it refuses another merchant's payTo or route, transfers, transitions and exits, and an oversize
// body, with nothing forwarded; the pool node limits relayed hand-overs per API key (the key's own
// limit, above the per-address one) and refuses an unknown key.

import type { Server } from 'node:http';

import express from 'express';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import type { PrivStarkCore } from '../../src/core/index.js';
import { Ledger } from '../../src/ledger/index.js';
import { buildPoolNode, type RelayKeys } from '../../src/pool-node/index.js';
import {
  encodeHandOverFrame,
  HANDOVER_BODY_LIMIT_BYTES,
  HANDOVER_FRAME_MEDIA_TYPE,
  TRANSFER_RESOURCE_ID,
} from '../../src/scheme/index.js';
import { PRIV_STARK_RELAY_PATH, privStarkRelay, privStarkRoutes } from '../../src/server/index.js';
import { relayHandOver } from '../../src/client/merchant-relay.js';
import { handOverBody, handOverFrame } from '../../testkit/bodies.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { storeHarness } from '../ledger/helpers/stores.js';

const TOKEN = 'operator-token-for-tests-0123456789';
const SHOP_KEY = 'shop-api-key-0123456789abcdef';
/** The shop's key allows 4 hand-overs a minute; one address 2. */
const KEY_LIMIT = 4;
const ADDRESS_LIMIT = 2;
const KEYS: RelayKeys = {
  find: (key) =>
    key === SHOP_KEY
      ? { id: 'shop', policy: { rateLimit: { max: KEY_LIMIT, timeWindowMs: 60_000 } } }
      : null,
};

describe('the merchant relay', () => {
  const h = storeHarness('sqlite');
  let core: PrivStarkCore;
  let fx: Fixtures;
  let node: FastifyInstance | undefined;
  let shop: Server | undefined;
  /** What the relay sent to the pool node: body bytes and header names. */
  const forwarded: { body: Buffer; headers: string[] }[] = [];

  beforeAll(async () => {
    core = h.core();
    fx = await fixtures(core, { seed: 'pool-node-handover', notes: 4 });
  }, 300_000);
  afterEach(async () => {
    shop?.closeAllConnections();
    await new Promise((resolve) => shop?.close(resolve));
    await node?.close();
    forwarded.length = 0;
  });

  /** A pool node over a funded ledger, and a shop on express with the relay in front of it. */
  async function setup(): Promise<{ poolUrl: string; relayUrl: string }> {
    const ledger = new Ledger({ core, store: (await h.fresh()).store });
    await fundPool(ledger, fx);
    node = await buildPoolNode({
      ledger,
      operatorToken: TOKEN,
      logger: false,
      handOver: { max: ADDRESS_LIMIT, timeWindowMs: 60_000 },
      relayKeys: KEYS,
    });
    await node.listen({ port: 0, host: '127.0.0.1' });
    const poolUrl = `http://127.0.0.1:${(node.server.address() as { port: number }).port}`;
    const p = fx.payments[0]!.payment;
    // This shop's one route: the fixture payments' payTo and resource id.
    const routes = privStarkRoutes({ [p.resourceId]: { payTo: p.payTo, price: '$0.01' } });
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const body = Buffer.from(await request.clone().arrayBuffer());
      const headers: string[] = [];
      request.headers.forEach((_value, name) => {
        headers.push(name);
      });
      forwarded.push({ body, headers: headers.sort() });
      return globalThis.fetch(request);
    };
    const app = express();
    // The one line a merchant on express adds.
    app.post(
      PRIV_STARK_RELAY_PATH,
      privStarkRelay({ routes, poolNode: poolUrl, apiKey: SHOP_KEY, fetch: recording }).node,
    );
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    shop = server;
    const port = (server.address() as { port: number }).port;
    return { poolUrl, relayUrl: `http://127.0.0.1:${port}${PRIV_STARK_RELAY_PATH}` };
  }

  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7', ...headers },
      body,
    });

  it('forwards the body unchanged under the merchant key alone; refuses other payTo, routes, transfers, transitions, exits and oversize bodies with nothing forwarded', async () => {
    const { relayUrl } = await setup();
    const p = fx.payments[0]!;
    const text = JSON.stringify(handOverBody(p));
    const answer = await post(relayUrl, text, { cookie: 'session=payer' });
    expect(answer.status, await answer.clone().text()).toBe(201);
    expect(((await answer.json()) as { reference: string }).reference).toBe(
      core.proofReference(p.proof, p.publicInputs).reference,
    );
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]!.body.equals(Buffer.from(text))).toBe(true);
    // Nothing of the payer's request but the body: no cookie, no forwarded address.
    expect(forwarded[0]!.headers).toEqual(['authorization', 'content-type']);

    const body = handOverBody(fx.payments[1]!);
    const refusals: [unknown, number, string][] = [
      [
        { ...body, payTo: handOverBody(fx.payments[0]!).payTo.replace(/.$/, 'q') },
        403,
        'merchant_relay_foreign',
      ],
      [{ ...body, resourceId: 'GET /not-this-shops' }, 403, 'merchant_relay_foreign'],
      [{ ...body, resourceId: TRANSFER_RESOURCE_ID }, 400, 'merchant_relay_handovers_only'],
      [{ ...body, recipient: body.payTo }, 400, 'merchant_relay_handovers_only'],
      [
        { ...body, nullifiers: [body.nullifier, body.nullifier] },
        400,
        'merchant_relay_handovers_only',
      ],
      [{ ...body, exit: '1', destination: 'eip155:1:0x0' }, 400, 'merchant_relay_handovers_only'],
      [[body], 400, 'invalid_payload'],
    ];
    for (const [refused, status, code] of refusals) {
      const reply = await post(relayUrl, JSON.stringify(refused));
      expect(reply.status, code).toBe(status);
      expect(((await reply.json()) as { error: string }).error).toBe(code);
    }
    const oversize = await post(relayUrl, `"${'a'.repeat(HANDOVER_BODY_LIMIT_BYTES)}"`);
    expect(oversize.status).toBe(413);
    expect(((await oversize.json()) as { error: string }).error).toBe('payload_too_large');
    expect(forwarded).toHaveLength(1);
  });

  it('forwards a hand-over frame byte for byte as a frame; refuses a frame for another payTo or a malformed one, nothing forwarded', async () => {
    const { relayUrl } = await setup();
    const p = fx.payments[0]!;
    const frame = Buffer.from(handOverFrame(p));
    const asFrame = (bytes: Uint8Array) =>
      fetch(relayUrl, {
        method: 'POST',
        headers: { 'content-type': HANDOVER_FRAME_MEDIA_TYPE },
        body: bytes as Uint8Array<ArrayBuffer>,
      });
    const answer = await asFrame(frame);
    expect(answer.status, await answer.clone().text()).toBe(201);
    expect(((await answer.json()) as { reference: string }).reference).toBe(
      core.proofReference(p.proof, p.publicInputs).reference,
    );
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]!.body.equals(frame)).toBe(true);
    const { proof: _base64, ...fields } = handOverBody(fx.payments[1]!);
    const refusals: [Uint8Array, number, string][] = [
      [
        encodeHandOverFrame({ ...fields, payTo: fields.payTo.replace(/.$/, 'q') }, p.proof),
        403,
        'merchant_relay_foreign',
      ],
      [
        encodeHandOverFrame({ ...fields, resourceId: TRANSFER_RESOURCE_ID }, p.proof),
        400,
        'merchant_relay_handovers_only',
      ],
      [frame.subarray(0, 12), 400, 'invalid_payload'],
      [
        Buffer.concat([frame.subarray(0, 4), Buffer.from([2]), frame.subarray(5)]),
        400,
        'invalid_payload',
      ],
    ];
    for (const [refused, status, code] of refusals) {
      const reply = await asFrame(refused);
      expect(reply.status, code).toBe(status);
      expect(((await reply.json()) as { error: string }).error).toBe(code);
    }
    expect(forwarded).toHaveLength(1);
  });

  it("a wallet's frame to a relay that reads JSON only (from before frames: its own invalid_payload, or 415) is sent again as JSON and paid; the twin: the pool node's own refusal is final", async () => {
    const { poolUrl } = await setup();
    const p = fx.payments[3]!.payment;
    const routes = privStarkRoutes({ [p.resourceId]: { payTo: p.payTo, price: '$0.01' } });
    const current = privStarkRelay({ routes, poolNode: poolUrl, apiKey: SHOP_KEY });
    const seen: string[] = [];
    // An older relay: JSON only. It refuses anything else as the relay of that version did.
    const older = (refusal: 400 | 415) => {
      const app = express();
      app.post(
        PRIV_STARK_RELAY_PATH,
        express.raw({ type: () => true, limit: '1mb' }),
        (req, res) => {
          const body = req.body as Buffer;
          seen.push(req.headers['content-type'] ?? '');
          if (body[0] !== 0x7b) {
            res
              .status(refusal)
              .json({ error: refusal === 415 ? 'unsupported_media_type' : 'invalid_payload' });
            return;
          }
          void current
            .relay(body)
            .then((reply) => res.status(reply.status).set(reply.headers).send(reply.body));
        },
      );
      return new Promise<Server>((resolve) => {
        const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
      });
    };
    for (const refusal of [400, 415] as const) {
      seen.length = 0;
      const server = await older(refusal);
      try {
        const url = new URL(
          `http://127.0.0.1:${(server.address() as { port: number }).port}${PRIV_STARK_RELAY_PATH}`,
        );
        const q = fx.payments[3]!;
        const { proof: _base64, ...fields } = handOverBody(q);
        const answer = await relayHandOver(url, { ...fields, proof: q.proof });
        expect(answer, String(refusal)).toMatchObject({
          reference: core.proofReference(q.proof, q.publicInputs).reference,
        });
        expect(seen, String(refusal)).toEqual([HANDOVER_FRAME_MEDIA_TYPE, 'application/json']);
        // The twin: a refusal the pool node gave (forwarded by the relay) is not a reason to resend.
        seen.length = 0;
        const flipped = Uint8Array.from(q.proof);
        flipped[200]! ^= 1;
        await expect(relayHandOver(url, { ...fields, proof: flipped })).rejects.toMatchObject({
          code: 'invalid_priv_stark_proof',
        });
        expect(seen).toEqual([HANDOVER_FRAME_MEDIA_TYPE, 'application/json']);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('is limited per API key at the pool node, not per address; an unknown key is refused', async () => {
    const { poolUrl, relayUrl } = await setup();
    const text = JSON.stringify(handOverBody(fx.payments[2]!));
    // The key's 4 a minute, above the address's 2: one address relays 4, the 5th is refused.
    const statuses: number[] = [];
    for (let i = 0; i <= KEY_LIMIT; i++) statuses.push((await post(relayUrl, text)).status);
    expect(statuses).toEqual([201, 200, 200, 200, 429]);
    // Must-fail twin of the limit's key: the same address without a key counts on its own.
    expect((await post(`${poolUrl}/proofs`, text)).status).toBe(200);
    expect((await post(`${poolUrl}/proofs`, text)).status).toBe(200);
    expect((await post(`${poolUrl}/proofs`, text)).status).toBe(429);
    const unknown = await post(`${poolUrl}/proofs`, text, { authorization: 'Bearer not-a-key' });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { error: string }).error).toBe('unauthorized');
  });
});
