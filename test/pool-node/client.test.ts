// The pool node's clients without a node (a recording fetch): PoolNodeClient is the wallet's client
// and the operator's under one name and sends exactly what each of them sends; the wallet's client
// never sends the operator token, the operator's always does (empty without one); every failure is
// a PoolNodeError with the node's code, `http_error` or `pool_unreachable`. And the bodies testkit
// builds pass the node's schemas, fields in their order. A proof given as bytes goes as a frame.

import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';

import type { DigestHex, TransitionProof } from '../../src/core/index.js';
import {
  type HandOverRequest,
  PoolNodeClient,
  PoolNodeError,
  PoolNodeOperatorClient,
  PoolNodeWalletClient,
} from '../../src/pool-node/index.js';
import { HandOverBodySchema } from '../../src/pool-node/handover-schema.js';
import { TransferBodySchema } from '../../src/pool-node/transfer-schema.js';
import { TransitionBodySchema } from '../../src/pool-node/transition-schema.js';
import {
  encodeHandOverFrame,
  HANDOVER_FRAME_HEADER_MAX_BYTES,
  HANDOVER_FRAME_MEDIA_TYPE,
} from '../../src/scheme/index.js';
import { transferBody, transitionBody } from '../../testkit/bodies.js';

const URL = 'http://pool.example:4021';
const D: DigestHex = `0x${'ab'.repeat(32)}`;

/** One request as it left: method, URL, headers and body. */
interface Sent {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | null;
}

/** A fetch that records each request and answers `reply` (200, `{}` by default). */
function recorder(reply: () => Response = () => Response.json({})) {
  const sent: Sent[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    sent.push({
      method: init?.method ?? 'GET',
      url: String(input),
      headers: { ...(init?.headers as Record<string, string> | undefined) },
      body: typeof init?.body === 'string' ? init.body : null,
    });
    return reply();
  };
  return { sent, fetch };
}

const handOver: HandOverRequest = {
  scheme: 'priv-stark/v1',
  network: 'shielded:devnet',
  asset: 'dUSD',
  payTo: 'pstark1recipient',
  amount: '10',
  resourceId: '',
  expiry: 1_900_000_000,
  root: D,
  nullifier: D,
  commitment: D,
  proof: 'AAAA',
};
const transfer = transferBody({
  scheme: 'priv-stark/v1',
  network: 'shielded:devnet',
  root: D,
  nullifier: D,
  commitment: D,
  proof: 'AAAA',
  amount: '10',
  recipient: 'pstark1recipient',
  expiry: 1_900_000_000,
});
const proven: TransitionProof = {
  proof: new Uint8Array(3),
  publicInputs: {
    root: D,
    nullifiers: [D, D],
    outputs: [D, D],
    exit: '0',
    ctx: D,
    memo: ['1', '2'],
    refund: D,
  },
};
const transition = transitionBody(proven, { network: 'shielded:devnet', expiry: 1_900_000_000 });

/** Every call of the wallet's client, and what it sends. */
const walletCalls = (c: PoolNodeWalletClient | PoolNodeClient) => [
  () => c.state(),
  () => c.checkpoints(),
  () => c.checkpoints(3, 5),
  () => c.leaves(7),
  () => c.events(2, 50),
  () => c.handOver(handOver),
  () => c.transfer(transfer),
  () => c.transition(transition),
];
const json = { 'content-type': 'application/json' };
const walletSent: Sent[] = [
  { method: 'GET', url: `${URL}/state`, headers: {}, body: null },
  { method: 'GET', url: `${URL}/checkpoints?after=0`, headers: {}, body: null },
  { method: 'GET', url: `${URL}/checkpoints?after=3&limit=5`, headers: {}, body: null },
  { method: 'GET', url: `${URL}/leaves?from=7`, headers: {}, body: null },
  { method: 'GET', url: `${URL}/events?after=2&limit=50`, headers: {}, body: null },
  { method: 'POST', url: `${URL}/proofs`, headers: json, body: JSON.stringify(handOver) },
  { method: 'POST', url: `${URL}/transfers`, headers: json, body: JSON.stringify(transfer) },
  { method: 'POST', url: `${URL}/transitions`, headers: json, body: JSON.stringify(transition) },
];

/** Every call of the operator's client, and what it sends with `token`. */
const operatorCalls = (c: PoolNodeOperatorClient | PoolNodeClient) => [
  () => c.withdrawals(),
  () => c.withdrawals(9, 20),
  () => c.payout(D, 'paying'),
  () => c.deposit('1000', D),
  () => c.attest(),
];
const operatorSent = (token: string): Sent[] => {
  const authorization = `Bearer ${token}`;
  return [
    { method: 'GET', url: `${URL}/withdrawals?after=0`, headers: { authorization }, body: null },
    {
      method: 'GET',
      url: `${URL}/withdrawals?after=9&limit=20`,
      headers: { authorization },
      body: null,
    },
    {
      method: 'POST',
      url: `${URL}/withdrawals/${D}/paying`,
      headers: { authorization },
      body: null,
    },
    {
      method: 'POST',
      url: `${URL}/deposit`,
      headers: { ...json, authorization },
      body: JSON.stringify({ amount: '1000', pre: D }),
    },
    { method: 'POST', url: `${URL}/attest`, headers: { authorization }, body: null },
  ];
};

async function run(calls: (() => Promise<unknown>)[]): Promise<void> {
  for (const call of calls) await call();
}

describe('the pool node clients', () => {
  it("send what the node's routes take: the wallet's without a token, the operator's with it", async () => {
    const wallet = recorder();
    await run(walletCalls(new PoolNodeWalletClient(`${URL}//`, { fetch: wallet.fetch })));
    expect(wallet.sent).toEqual(walletSent);
    expect(wallet.sent.every((s) => !('authorization' in s.headers))).toBe(true);

    const operator = recorder();
    await run(
      operatorCalls(new PoolNodeOperatorClient(URL, { token: 'tok', fetch: operator.fetch })),
    );
    expect(operator.sent).toEqual(operatorSent('tok'));
    // Without a token the header still goes, empty: the node answers 401 unauthorized.
    const anonymous = recorder();
    await run(operatorCalls(new PoolNodeOperatorClient(URL, { fetch: anonymous.fetch })));
    expect(anonymous.sent).toEqual(operatorSent(''));
  });

  it('PoolNodeClient is both under one name: the same requests, in the same order', async () => {
    const both = recorder();
    const client = new PoolNodeClient(`${URL}/`, { token: 'tok', fetch: both.fetch });
    expect(client.url).toBe(URL);
    expect(client.wallet.url).toBe(URL);
    expect(client.operator.url).toBe(URL);
    await run([...walletCalls(client), ...operatorCalls(client)]);
    expect(both.sent).toEqual([...walletSent, ...operatorSent('tok')]);
    // The token reaches the operator's calls only.
    const leaves = recorder(() => Response.json({ from: 0, leaves: [D, D], next: 2 }));
    const reader = new PoolNodeClient(URL, { token: 'tok', fetch: leaves.fetch });
    expect(await reader.allLeaves(1)).toEqual([D]);
    expect(leaves.sent).toEqual([
      { method: 'GET', url: `${URL}/leaves?from=0`, headers: {}, body: null },
    ]);
  });

  it('fail with PoolNodeError: the node code, http_error, pool_unreachable', async () => {
    const refusing = recorder(() =>
      Response.json({ error: 'unknown_root', message: 'no such root' }, { status: 400 }),
    );
    await expect(
      new PoolNodeClient(URL, { fetch: refusing.fetch }).transfer(transfer),
    ).rejects.toMatchObject({
      name: 'PoolNodeError',
      code: 'unknown_root',
      status: 400,
      message: 'pool node /transfers: no such root',
    });
    const notJson = recorder(() => new Response('<html>', { status: 502 }));
    await expect(
      new PoolNodeOperatorClient(URL, { fetch: notJson.fetch }).withdrawals(4),
    ).rejects.toMatchObject({
      code: 'http_error',
      status: 502,
      message: 'pool node /withdrawals: HTTP 502',
    });
    const down: typeof fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const unreachable = new PoolNodeWalletClient(URL, { fetch: down }).state();
    await expect(unreachable).rejects.toBeInstanceOf(PoolNodeError);
    await expect(unreachable).rejects.toMatchObject({ code: 'pool_unreachable', status: 0 });
  });

  it('hand over a proof given as bytes as a frame; a node that takes no frames (415) gets the JSON body next, any other refusal is final', async () => {
    const bytes = Uint8Array.from([0, 0, 0]); // 'AAAA' in base64
    const { proof: _base64, ...fields } = handOver;
    const sent: { type: string; body: Uint8Array | string }[] = [];
    const node = (frameStatus: number) =>
      new PoolNodeWalletClient(URL, {
        fetch: async (_input, init) => {
          const type = (init!.headers as Record<string, string>)['content-type']!;
          sent.push({ type, body: init?.body as Uint8Array | string });
          return type === HANDOVER_FRAME_MEDIA_TYPE && frameStatus !== 201
            ? Response.json(
                { error: 'unsupported_media_type', message: 'no' },
                { status: frameStatus },
              )
            : Response.json({ reference: D, expires: 1 }, { status: 201 });
        },
      });
    expect(await node(201).handOver({ ...fields, proof: bytes })).toEqual({
      reference: D,
      expires: 1,
    });
    expect(sent).toEqual([
      { type: HANDOVER_FRAME_MEDIA_TYPE, body: encodeHandOverFrame(fields, bytes) },
    ]);
    sent.length = 0;
    expect(await node(415).handOver({ ...fields, proof: bytes })).toEqual({
      reference: D,
      expires: 1,
    });
    expect(sent.map((s) => s.type)).toEqual([HANDOVER_FRAME_MEDIA_TYPE, 'application/json']);
    expect(sent[1]!.body).toBe(JSON.stringify(handOver));
    // Fields too long for a frame's header go as JSON straight away (the schema then judges them).
    sent.length = 0;
    const long = { ...fields, resourceId: 'x'.repeat(HANDOVER_FRAME_HEADER_MAX_BYTES) };
    await node(201).handOver({ ...long, proof: bytes });
    expect(sent.map((s) => s.type)).toEqual(['application/json']);
    // The twin: a refusal other than 415 is the node's answer, not a reason to send it again.
    sent.length = 0;
    await expect(node(400).handOver({ ...fields, proof: bytes })).rejects.toMatchObject({
      status: 400,
    });
    expect(sent).toHaveLength(1);
  });

  it("the bodies the testkit builds are the node's: each passes its schema, fields in the schema's order", () => {
    const cases = [
      [HandOverBodySchema, handOver],
      [TransferBodySchema, transfer],
      [TransitionBodySchema, transition],
    ] as const;
    for (const [schema, body] of cases) {
      expect(Value.Check(schema, body)).toBe(true);
      const order = Object.keys(schema.properties).filter((key) => key in body);
      expect(Object.keys(body)).toEqual(order);
      // Must-fail twin: an unknown field is refused.
      expect(Value.Check(schema, { ...body, extra: 1 })).toBe(false);
    }
    const exit = transitionBody(
      { ...proven, publicInputs: { ...proven.publicInputs, exit: '5' } },
      {
        network: 'shielded:devnet',
        expiry: 1_900_000_000,
        withdrawal: { amount: '5', destination: 'eip155:1:0x0' },
      },
    );
    expect(Value.Check(TransitionBodySchema, exit)).toBe(true);
    expect(Object.keys(exit)).toEqual(Object.keys(TransitionBodySchema.properties));
  });
});
