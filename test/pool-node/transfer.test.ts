// POST /transfers on the pool node, over real loopback listeners on both stores (a SQLite file and
// a throwaway PostgreSQL 15): a transfer built by a funded wallet settles and the recipient finds
// its note; settle-once (a repost, N copies at once, two nodes over one database); the binding to
// the pool's transfer context both ways (a merchant's proof is no transfer, a transfer's proof pays
// no merchant); the expiry bound, foreign pools, scheme, network and amounts; hostile bodies
// (fast-check) always a 4xx with a registry reason and nothing applied; a failed store (503); the
// per-client rate limit and CORS. Each refusal has a twin: the same body, or the same wallet, then
// settles.

import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { Ledger, type PoolStore } from '../../src/ledger/index.js';
import {
  buildPoolNode,
  type HandOverLimits,
  PoolNodeClient,
  PoolNodeError,
  type TransferRequest,
} from '../../src/pool-node/index.js';
import {
  decodeProof,
  encodeProof,
  HANDOVER_BODY_LIMIT_BYTES,
  messageOf,
  type PaymentRequirements,
  type PoolNodeReason,
  POOL_NODE_REASONS,
  paymentContext,
  publicInputs,
  type Reason,
  REASON_CODES,
  statusOf,
  TRANSFER_RESOURCE_ID,
} from '../../src/scheme/index.js';
import { transferBody } from '../../testkit/bodies.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { STORE_KINDS, storeHarness } from '../ledger/helpers/stores.js';

const TOKEN = 'operator-token-for-tests-0123456789';
const SHOP = 'https://shop.example';
const DEPOSIT = 1_000_000n;
/** High enough that no test but the rate limit's own meets it. */
const NO_LIMIT: HandOverLimits = { max: 1_000_000, timeWindowMs: 60_000 };

/** What a refusal of the route may carry: a reason of the registry, or the schema's. */
const ALLOWED_CODES = new Set<string>([
  ...REASON_CODES,
  ...Object.keys(POOL_NODE_REASONS),
  'invalid_request',
]);

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

/** A reply read off the socket. */
interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly json: Record<string, unknown> | null;
  readonly text: string;
}

async function send(url: string, init: RequestInit): Promise<Reply> {
  const response = await fetch(url, init);
  const text = await response.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** POST /transfers with a JSON body (any value: a string or a number is JSON too). */
function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return send(`${url}/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** A refusal of the route: a 4xx, JSON `{ error, message }` (+ `transaction` for a duplicate). */
function expectRefusal(reply: Reply, what: string, reason?: Reason | PoolNodeReason): void {
  const context = `${what}: ${reply.status} ${reply.text.slice(0, 300)}`;
  expect(reply.status, context).toBeGreaterThanOrEqual(400);
  expect(reply.status, context).toBeLessThan(500);
  expect(reply.headers.get('content-type'), context).toMatch(/^application\/json/);
  const body = reply.json;
  expect(body, context).not.toBeNull();
  const error = String(body?.error);
  expect(ALLOWED_CODES.has(error), context).toBe(true);
  expect(typeof body?.message, context).toBe('string');
  expect(Object.keys(body ?? {}).sort(), context).toEqual(
    error === 'duplicate_settlement' ? ['error', 'message', 'transaction'] : ['error', 'message'],
  );
  if (reason !== undefined) {
    expect(body, context).toMatchObject({ error: reason, message: messageOf(reason) });
    expect(reply.status, context).toBe(statusOf(reason));
  }
}

/** Records every transfer body a wallet sends; holds them back (no reply) while `hold` is set. */
class Capture {
  readonly bodies: TransferRequest[] = [];
  hold = false;
  readonly fetch: typeof fetch = async (input, init) => {
    if (String(input).endsWith('/transfers')) {
      this.bodies.push(JSON.parse(String(init?.body)) as TransferRequest);
      if (this.hold) throw new Error('held back by the test');
    }
    return globalThis.fetch(input, init);
  };
}

/** A merchant's requirements (a short timeout: its expiry is within a transfer's bound too). */
function merchantRequirements(payTo: string, amount: bigint): PaymentRequirements {
  return {
    scheme: 'priv-stark/v1',
    network: 'shielded:devnet',
    asset: 'dUSD',
    amount: amount.toString(),
    payTo,
    maxTimeoutSeconds: 60,
    extra: { resourceId: 'GET /paid' },
  };
}

describe.each(kinds)('POST /transfers on the %s store', (kind) => {
  const h = storeHarness(kind);
  let apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
  });

  /** A pool node on loopback over `store`; its ledger's clock can be pinned. */
  async function startNode(
    store?: PoolStore,
    options: { corsOrigins?: readonly string[]; handOver?: HandOverLimits } = {},
  ) {
    const core = h.core();
    const theStore = store ?? (await h.fresh()).store;
    let pinned: number | null = null;
    const ledger = new Ledger({
      core,
      store: theStore,
      clock: () => pinned ?? Date.now(),
    });
    const app = await buildPoolNode({
      ledger,
      operatorToken: TOKEN,
      logger: false,
      handOver: options.handOver ?? NO_LIMIT,
      ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    });
    apps.push(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    return {
      core,
      ledger,
      store: theStore,
      url,
      operator: new PoolNodeClient(url, { token: TOKEN }),
      /** Stops the pool's clock (expiries cannot pass while a long property runs). */
      pin: () => {
        pinned = Date.now();
      },
    };
  }
  type Node = Awaited<ReturnType<typeof startNode>>;

  /** A wallet of `node`, its transfers recorded by a {@link Capture}. */
  async function wallet(node: Node, clock?: () => number) {
    const capture = new Capture();
    const w = await Wallet.create({
      core: node.core,
      pool: node.url,
      handOverFetch: capture.fetch,
      ...(clock ? { clock } : {}),
    });
    return { wallet: w, capture };
  }

  /** Shields one deposit per amount to `w` through the operator route, checkpoints, syncs. */
  async function fund(node: Node, w: Wallet, amounts: readonly bigint[]): Promise<void> {
    for (const amount of amounts) {
      const ticket = await w.depositTicket(amount.toString());
      await node.operator.deposit(ticket.amount, ticket.pre);
    }
    await node.ledger.checkpoint();
    await w.sync();
  }

  /** A transfer the wallet built and tried to send, held back by the capture: the body. */
  async function heldTransfer(
    from: { wallet: Wallet; capture: Capture },
    recipient: string,
    amount: bigint,
  ): Promise<TransferRequest> {
    from.capture.hold = true;
    const before = from.capture.bodies.length;
    try {
      await expect(from.wallet.transfer(recipient, amount)).rejects.toMatchObject({
        code: 'pool_unreachable',
      });
    } finally {
      from.capture.hold = false;
    }
    expect(from.capture.bodies.length).toBe(before + 1);
    return from.capture.bodies[before]!;
  }

  /** What the pool holds: a refusal changes none of it. */
  async function ledgerState(store: PoolStore) {
    const { size, root, events, depositTotal } = await store.state();
    return { size, root, events, depositTotal };
  }

  it('settles a transfer built by wallet.transfer: 200 { transaction, changeIndex, recipientIndex }, the recipient finds the note, the payer holds exactly the amount less; a bystander finds nothing', async () => {
    const node = await startNode();
    const payer = await wallet(node);
    const { wallet: recipient } = await wallet(node);
    const { wallet: bystander } = await wallet(node);
    await fund(node, payer.wallet, [DEPOSIT]);
    await recipient.sync();
    await bystander.sync();
    expect(payer.wallet.balance().total).toBe(DEPOSIT);
    const before = await ledgerState(node.store);

    const amount = 250_000n;
    const receipt = await payer.wallet.transfer(recipient.address, amount);
    expect(Object.keys(receipt).sort()).toEqual(['changeIndex', 'recipientIndex', 'transaction']);
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(receipt.changeIndex).toBe(before.size);
    expect(receipt.recipientIndex).toBe(before.size + 1);
    const body = payer.capture.bodies[0]!;
    expect(body).toMatchObject({
      scheme: 'priv-stark/v1',
      network: 'shielded:devnet',
      amount: amount.toString(),
      recipient: recipient.address,
    });
    // The pool's log shows what a payment shows: nullifier, change, amount, recipient address.
    expect(await node.store.nullifier(body.nullifier)).toMatchObject({
      settlementId: receipt.transaction,
    });
    const events = await node.ledger.events(before.events, 10);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: 'settlement',
      amount: amount.toString(),
      nullifier: body.nullifier,
      change: body.commitment,
      recipient: recipient.address,
      settlementId: receipt.transaction,
      changeIndex: receipt.changeIndex,
      recipientIndex: receipt.recipientIndex,
    });

    await node.ledger.checkpoint();
    await payer.wallet.sync();
    await recipient.sync();
    await bystander.sync();
    const received = recipient.notes();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      value: amount.toString(),
      index: receipt.recipientIndex,
      origin: 'received',
    });
    expect(recipient.balance().spendable).toBe(amount);
    expect(payer.wallet.balance()).toEqual({
      spendable: DEPOSIT - amount,
      pending: 0n,
      unconfirmed: 0n,
      total: DEPOSIT - amount,
    });
    expect(payer.wallet.notes().map((n) => [n.value, n.index, n.origin])).toEqual([
      [(DEPOSIT - amount).toString(), receipt.changeIndex, 'change'],
    ]);
    // the twin: a wallet the transfer did not pay finds nothing
    expect(bystander.notes()).toEqual([]);
    expect(bystander.balance().total).toBe(0n);
  });

  it('settles once: the same body again is 409 duplicate_settlement with the same transaction, whatever else it fails; eight copies at once settle exactly once', async () => {
    const node = await startNode();
    const payer = await wallet(node);
    const { wallet: recipient } = await wallet(node);
    await fund(node, payer.wallet, [DEPOSIT, DEPOSIT]);

    // A transfer sent by the wallet, then posted again as is.
    const receipt = await payer.wallet.transfer(recipient.address, 100_000n);
    const sent = payer.capture.bodies[0]!;
    const settled = await ledgerState(node.store);
    const again = await post(node.url, sent);
    expectRefusal(again, 'repost', 'duplicate_settlement');
    expect(again.json?.transaction).toBe(receipt.transaction);
    // A settled nullifier is answered first: a retry learns it went through even if the rest fails.
    const flipped = Buffer.from(sent.proof, 'base64');
    flipped[flipped.length >> 1]! ^= 1;
    for (const [what, body] of [
      ['flipped proof', { ...sent, proof: flipped.toString('base64') }],
      ['other amount', { ...sent, amount: '1' }],
      ['expired', { ...sent, expiry: 1 }],
    ] as const) {
      const reply = await post(node.url, body);
      expectRefusal(reply, what, 'duplicate_settlement');
      expect(reply.json?.transaction, what).toBe(receipt.transaction);
    }
    expect(await ledgerState(node.store)).toEqual(settled);

    // Eight identical bodies at once: one 200, seven duplicates naming it.
    const body = await heldTransfer(payer, recipient.address, 100_000n);
    const replies = await Promise.all(Array.from({ length: 8 }, () => post(node.url, body)));
    const ok = replies.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    const transaction = ok[0]!.json?.transaction;
    for (const reply of replies.filter((r) => r.status !== 200)) {
      expectRefusal(reply, 'concurrent copy', 'duplicate_settlement');
      expect(reply.json?.transaction).toBe(transaction);
    }
    const after = await ledgerState(node.store);
    expect(after.size).toBe(settled.size + 2);
    expect(after.events).toBe(settled.events + 1);
  });

  it('two pool nodes over one database receiving the same bodies at once settle each exactly once', async () => {
    const fresh = await h.fresh();
    const a = await startNode(fresh.store);
    const b = await startNode(await fresh.open());
    const payer = await wallet(a);
    const { wallet: recipient } = await wallet(a);
    await fund(a, payer.wallet, [DEPOSIT, DEPOSIT, DEPOSIT]);
    const before = await ledgerState(a.store);
    const bodies = [
      await heldTransfer(payer, recipient.address, 10_000n),
      await heldTransfer(payer, recipient.address, 20_000n),
      await heldTransfer(payer, recipient.address, 30_000n),
    ];
    const replies = await Promise.all(
      bodies.map((body) => Promise.all([a.url, b.url, a.url, b.url].map((url) => post(url, body)))),
    );
    for (const [i, copies] of replies.entries()) {
      const ok = copies.filter((r) => r.status === 200);
      expect(ok, `body ${i}`).toHaveLength(1);
      for (const reply of copies.filter((r) => r.status !== 200)) {
        expectRefusal(reply, `body ${i}`, 'duplicate_settlement');
        expect(reply.json?.transaction).toBe(ok[0]!.json?.transaction);
      }
    }
    const after = await ledgerState(b.store);
    expect(after.size).toBe(before.size + 2 * bodies.length);
    expect(after.events).toBe(before.events + bodies.length);
    // One ledger: a checkpoint published by either node shows the recipient all three notes.
    await b.ledger.checkpoint();
    await recipient.sync();
    expect(
      recipient
        .notes()
        .map((n) => n.value)
        .sort(),
    ).toEqual(['10000', '20000', '30000']);
  });

  it("binds to the transfer context both ways: a merchant's proof is refused by /transfers, a transfer's proof pays no merchant; nothing applied, the nullifiers unspent; the twins settle where they belong", async () => {
    const node = await startNode();
    const payer = await wallet(node);
    const { wallet: merchant } = await wallet(node);
    await fund(node, payer.wallet, [DEPOSIT, DEPOSIT]);
    const core = node.core;
    const start = await ledgerState(node.store);

    // A merchant payment (resourceId 'GET /paid', inline) posted as a transfer.
    const requirements = merchantRequirements(merchant.address, 40_000n);
    const payload = await payer.wallet.createPayment(requirements, { transport: 'inline' });
    const asTransfer = transferBody(payload);
    expectRefusal(
      await post(node.url, asTransfer),
      'merchant proof as a transfer',
      'invalid_priv_stark_proof',
    );
    expect(await ledgerState(node.store)).toEqual(start);
    expect(await node.store.nullifier(payload.nullifier)).toBeNull();

    // A transfer's proof settled as a merchant payment through Ledger.settle.
    const transfer = await heldTransfer(payer, merchant.address, 40_000n);
    const decoded = decodeProof(transfer.proof);
    if (!decoded.ok) throw new Error('the wallet sent a proof that does not decode');
    const merchantPayment = paymentContext(
      merchantRequirements(transfer.recipient, BigInt(transfer.amount)),
      transfer.expiry,
    );
    const transferPayload = { ...transfer, asset: 'dUSD' };
    // as the facilitator would: ctx from the merchant's requirements
    const asMerchant = await node.ledger.settle({
      proof: decoded.bytes,
      publicInputs: publicInputs(transferPayload, core.contextDigest(merchantPayment)),
      payment: merchantPayment,
    });
    expect(asMerchant).toMatchObject({ ok: false, reason: 'invalid_priv_stark_proof' });
    // the proof's own ctx claimed against the merchant's payment
    const transferCtx = core.contextDigest({
      ...merchantPayment,
      resourceId: TRANSFER_RESOURCE_ID,
    });
    const claimingOwnCtx = await node.ledger.settle({
      proof: decoded.bytes,
      publicInputs: publicInputs(transferPayload, transferCtx),
      payment: merchantPayment,
    });
    expect(claimingOwnCtx).toMatchObject({ ok: false, reason: 'payment_requirements_mismatch' });
    expect(await ledgerState(node.store)).toEqual(start);
    expect(await node.store.nullifier(transfer.nullifier)).toBeNull();

    // The twins: each proof settles where it is bound.
    const merchantProof = decodeProof(payload.proof!);
    if (!merchantProof.ok) throw new Error('the wallet built a proof that does not decode');
    const payment = paymentContext(requirements, payload.expiry);
    const paid = await node.ledger.settle({
      proof: merchantProof.bytes,
      publicInputs: publicInputs(payload, core.contextDigest(payment)),
      payment,
    });
    expect(paid).toMatchObject({ ok: true });
    const transferred = await post(node.url, transfer);
    expect(transferred.status, transferred.text).toBe(200);
    // …and the merchant's proof, now settled, is a duplicate at /transfers (the nullifier first).
    expectRefusal(
      await post(node.url, asTransfer),
      'settled merchant proof',
      'duplicate_settlement',
    );
    const end = await ledgerState(node.store);
    expect(end.size).toBe(start.size + 4);
    expect(end.events).toBe(start.events + 2);
  });

  it('refuses an expiry too far ahead (a wallet clock an hour fast) and a past one (an hour slow), nothing applied; the same wallets with a right clock then transfer', async () => {
    const node = await startNode();
    let fast = 3_600_000;
    let slow = -3_600_000;
    const ahead = await wallet(node, () => Date.now() + fast);
    const behind = await wallet(node, () => Date.now() + slow);
    const { wallet: recipient } = await wallet(node);
    await fund(node, ahead.wallet, [DEPOSIT]);
    await fund(node, behind.wallet, [DEPOSIT]);
    const start = await ledgerState(node.store);

    for (const [what, from, reason] of [
      ['an hour fast', ahead, 'expiry_too_far'],
      ['an hour slow', behind, 'payment_expired'],
    ] as const) {
      const refused = await from.wallet.transfer(recipient.address, 5_000n).catch((e) => e);
      expect(refused, what).toBeInstanceOf(PoolNodeError);
      expect(refused, what).toMatchObject({ code: reason, status: 400 });
      const body = from.capture.bodies.at(-1)!;
      const now = Math.floor(Date.now() / 1000);
      if (reason === 'expiry_too_far') expect(body.expiry).toBeGreaterThan(now + 3000);
      else expect(body.expiry).toBeLessThan(now - 3000);
      // the wallet forgot the refused transfer: its note is free again
      expect(from.wallet.payments(), what).toEqual([]);
      expect(from.wallet.balance().spendable, what).toBe(DEPOSIT);
      expect(await node.store.nullifier(body.nullifier), what).toBeNull();
    }
    expect(await ledgerState(node.store)).toEqual(start);

    fast = 0;
    slow = 0;
    await ahead.wallet.transfer(recipient.address, 5_000n);
    await behind.wallet.transfer(recipient.address, 5_000n);
    expect((await ledgerState(node.store)).events).toBe(start.events + 2);
  });

  it('refuses another scheme or network, an anchor of another pool (unknown_root), another amount, recipient or expiry than the proof; the body then settles', async () => {
    const node = await startNode();
    const other = await startNode();
    const payer = await wallet(node);
    const { wallet: recipient } = await wallet(node);
    const { wallet: third } = await wallet(node);
    await fund(node, payer.wallet, [DEPOSIT]);
    // another pool with its own deposit and checkpoint, on the same network
    const stranger = await wallet(other);
    await fund(other, stranger.wallet, [DEPOSIT]);
    const body = await heldTransfer(payer, recipient.address, 70_000n);
    const start = await ledgerState(node.store);
    const otherStart = await ledgerState(other.store);

    const cases: [string, Record<string, unknown>, Reason][] = [
      ['scheme', { scheme: 'exact' }, 'unsupported_scheme'],
      ['scheme v2', { scheme: 'priv-stark/v2' }, 'unsupported_scheme'],
      ['network', { network: 'shielded:mainnet' }, 'unsupported_network'],
      ['network base', { network: 'eip155:8453' }, 'unsupported_network'],
      ['amount + 1', { amount: '70001' }, 'invalid_priv_stark_proof'],
      ['amount - 1', { amount: '69999' }, 'invalid_priv_stark_proof'],
      ['another recipient', { recipient: third.address }, 'invalid_priv_stark_proof'],
      ['another expiry', { expiry: body.expiry + 60 }, 'invalid_priv_stark_proof'],
      ['amount 0', { amount: '0' }, 'invalid_payload'],
      ['amount with a leading zero', { amount: '070000' }, 'invalid_payload'],
      ['amount 2^62', { amount: (1n << 62n).toString() }, 'invalid_payload'],
      ['recipient not an address', { recipient: 'pstark1notanaddress' }, 'invalid_payload'],
      ['recipient in capitals', { recipient: body.recipient.toUpperCase() }, 'invalid_payload'],
      ['expired', { expiry: Math.floor(Date.now() / 1000) - 1 }, 'payment_expired'],
      ['too far', { expiry: Math.floor(Date.now() / 1000) + 3600 }, 'expiry_too_far'],
    ];
    for (const [what, change, reason] of cases) {
      expectRefusal(await post(node.url, { ...body, ...change }), what, reason);
    }
    // The anchor is a checkpoint of this pool only.
    expectRefusal(await post(other.url, body), 'another pool', 'unknown_root');
    expect(await ledgerState(other.store)).toEqual(otherStart);
    expect(await ledgerState(node.store)).toEqual(start);
    expect(await node.store.nullifier(body.nullifier)).toBeNull();

    // the twin: the body as the wallet built it settles on its own pool
    const settled = await post(node.url, body);
    expect(settled.status, settled.text).toBe(200);
    expect(settled.json).toEqual({
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      changeIndex: start.size,
      recipientIndex: start.size + 1,
    });
  });

  it('hostile bodies (fast-check): always a 4xx with a registry reason or invalid_request, never a 5xx, nothing applied; the valid bodies settle after', async () => {
    const node = await startNode();
    const payer = await wallet(node);
    const { wallet: recipient } = await wallet(node);
    const { wallet: third } = await wallet(node);
    await fund(node, payer.wallet, [DEPOSIT, DEPOSIT, DEPOSIT]);
    const valid = [
      await heldTransfer(payer, recipient.address, 11_000n),
      await heldTransfer(payer, recipient.address, 22_000n),
      await heldTransfer(payer, third.address, 33_000n),
    ];
    // The pool's clock stands still from here: the valid bodies cannot expire while it runs.
    node.pin();
    const start = await ledgerState(node.store);
    const fields = Object.keys(valid[0]!) as (keyof TransferRequest)[];
    const digestFields = ['root', 'nullifier', 'commitment'] as const;

    const digestLike = (of: string) =>
      fc.oneof(
        fc.constant(`0x${'ff'.repeat(32)}`), // non-canonical field elements
        fc.constant(of.toUpperCase()),
        fc.constant(of.slice(2)),
        fc.constant(`${of}00`),
        fc.constant(of.slice(0, -2)),
        fc.constant(`0x${of.slice(2, 4) === '00' ? '01' : '00'}${of.slice(4)}`),
        fc.stringMatching(/^0x[0-9a-f]{0,70}$/),
      );
    const proofLike = (proof: string) =>
      fc.oneof(
        fc.constant(''),
        fc.constant('===='),
        fc.constant(`${proof.slice(0, -4)}====`),
        fc.constant(`${proof.slice(0, -1)}B`),
        fc.constant(proof.replace(/\+/g, '-').replace(/\//g, '_')), // base64url
        fc.constant(` ${proof}`),
        fc.constant(`${proof}\n`),
        fc.constant(proof.slice(0, proof.length - 4)), // truncated, still canonical
        fc.constant(`${proof}AAAA`), // extended, still canonical
        fc.constant('A'.repeat(HANDOVER_BODY_LIMIT_BYTES)), // over the body limit
        fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, mask]) => {
          const bytes = Buffer.from(proof, 'base64');
          bytes[at % bytes.length]! ^= mask;
          return bytes.toString('base64');
        }),
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
    const oversized = fc
      .constantFrom(300, 4096, HANDOVER_BODY_LIMIT_BYTES)
      .map((n) => 'x'.repeat(n));
    type Mutation = (body: Record<string, unknown>) => void;
    const set = (field: string, value: fc.Arbitrary<unknown>) =>
      value.map(
        (v): Mutation =>
          (body) => {
            body[field] = v;
          },
      );
    const anyField = fc.constantFrom(...fields);
    const nth = <T>(list: readonly T[]) => fc.nat().map((i) => list[i % list.length]!);
    // Bodies the schema takes: each reaches the route's or the ledger's own checks.
    const wellFormed: fc.Arbitrary<Mutation> = fc.oneof(
      fc
        .tuple(fc.constantFrom(...digestFields), nth(valid))
        .chain(([f, base]) => set(f, digestLike(base[f]))),
      // a digest of another field or of another valid transfer in its place
      fc.tuple(fc.constantFrom(...digestFields), fc.constantFrom(...digestFields), nth(valid)).map(
        ([f, g, other]): Mutation =>
          (body) => {
            body[f] = other[g];
          },
      ),
      // one field of another valid transfer (spliced statements)
      fc.tuple(anyField, nth(valid)).map(
        ([f, other]): Mutation =>
          (body) => {
            body[f] = other[f];
          },
      ),
      nth(valid).chain((base) => set('proof', proofLike(base.proof))),
      set(
        'amount',
        fc.constantFrom('0', '011000', '1', '11001', '4611686018427387904', '9'.repeat(32)),
      ),
      nth(valid).chain((base) =>
        set(
          'expiry',
          fc.constantFrom(
            0,
            1,
            Number.MAX_SAFE_INTEGER,
            base.expiry - 60,
            base.expiry + 60,
            base.expiry - 3600,
            base.expiry + 3600,
          ),
        ),
      ),
      set(
        'recipient',
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 256 }),
          fc.constantFrom(
            third.address,
            payer.wallet.address,
            `${recipient.address}x`,
            recipient.address.slice(0, -1),
            recipient.address.toUpperCase(),
            'x'.repeat(256),
          ),
        ),
      ),
      set('scheme', fc.oneof(fc.string({ minLength: 1, maxLength: 64 }), fc.constant('exact'))),
      set(
        'network',
        fc.oneof(fc.string({ minLength: 1, maxLength: 128 }), fc.constant('shielded:mainnet')),
      ),
    );
    // Bodies the schema refuses (or the body limit).
    const shapeBroken: fc.Arbitrary<Mutation> = fc.oneof(
      anyField.map(
        (f): Mutation =>
          (body) => {
            delete body[f];
          },
      ),
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 12 }), wrongType)
        .filter(([k]) => !(fields as string[]).includes(k))
        .map(
          ([k, v]): Mutation =>
            (body) => {
              body[k] = v;
            },
        ),
      anyField.chain((f) => set(f, wrongType)),
      anyField.chain((f) => set(f, oversized)),
      set(
        'amount',
        fc.constantFrom('', '-1', '1e3', '+11000', ' 11000', '11000.0', '9'.repeat(33)),
      ),
      set('expiry', fc.constantFrom(-1, 1.5, 2 ** 53, '4102444800')),
      set('scheme', fc.constant('')),
      set('network', fc.constant('')),
      set('recipient', fc.constant('')),
    );
    const mutate = (mutations: fc.Arbitrary<Mutation>, maxLength: number) =>
      fc.tuple(nth(valid), fc.array(mutations, { minLength: 1, maxLength })).map(([base, ms]) => {
        const body: Record<string, unknown> = { ...base };
        for (const m of ms) m(body);
        return body as unknown;
      });
    const hostile = fc.oneof(
      { weight: 4, arbitrary: mutate(wellFormed, 2) },
      { weight: 2, arbitrary: mutate(fc.oneof(wellFormed, shapeBroken), 3) },
      { weight: 1, arbitrary: wrongType },
    );
    const validText = new Set(valid.map((v) => JSON.stringify(v)));
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(hostile, async (body) => {
        // a mutation that gives a valid body back is no hostile input
        fc.pre(!validText.has(JSON.stringify(body)));
        const reply = await post(node.url, body);
        expectRefusal(reply, JSON.stringify(body).slice(0, 200));
        expect(reply.json?.error).not.toBe('duplicate_settlement');
        seen.set(String(reply.json?.error), (seen.get(String(reply.json?.error)) ?? 0) + 1);
      }),
      { numRuns: 150 },
    );
    // The generator reached the schema, the route and the ledger, down to the proof's verification.
    for (const reason of ['invalid_request', 'invalid_payload', 'invalid_priv_stark_proof'])
      expect(seen.get(reason), reason).toBeGreaterThan(0);
    expect(await ledgerState(node.store)).toEqual(start);
    for (const v of valid) expect(await node.store.nullifier(v.nullifier)).toBeNull();

    // Raw bodies, content types and sizes.
    const raw = (payload: string, type?: string) =>
      send(`${node.url}/transfers`, {
        method: 'POST',
        body: payload,
        headers: type === undefined ? {} : { 'content-type': type },
      });
    const text = JSON.stringify(valid[0]);
    const rawCases: [string, Promise<Reply>, number, string][] = [
      ['truncated JSON', raw(text.slice(0, -1), 'application/json'), 400, 'invalid_request'],
      ['empty body', raw('', 'application/json'), 400, 'invalid_request'],
      ['not JSON', raw('proof=AAAA', 'application/json'), 400, 'invalid_request'],
      [
        'prototype poisoning',
        raw(`{"__proto__":{"polluted":1},${text.slice(1)}`, 'application/json'),
        400,
        'invalid_request',
      ],
      [
        'over the body limit',
        raw(
          JSON.stringify({ ...valid[0], pad: 'x'.repeat(HANDOVER_BODY_LIMIT_BYTES) }),
          'application/json',
        ),
        413,
        'payload_too_large',
      ],
      ['a JSON array', raw('[]', 'application/json'), 400, 'invalid_request'],
      ['null', raw('null', 'application/json'), 400, 'invalid_request'],
    ];
    for (const [what, pending, status, error] of rawCases) {
      const reply = await pending;
      expectRefusal(reply, what);
      expect(reply.status, what).toBe(status);
      expect(reply.json?.error, what).toBe(error);
    }
    // JSON only: another content type is the node's 415 (outside the registry, as on every route)
    const plain = await raw(text, 'text/plain');
    expect(plain.status).toBe(415);
    expect(plain.json).toEqual({
      error: 'unsupported_media_type',
      message: 'send application/json',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await ledgerState(node.store)).toEqual(start);

    // the twins: the three valid bodies settle, and the node is healthy
    for (const v of valid) {
      const reply = await post(node.url, v);
      expect(reply.status, reply.text).toBe(200);
    }
    expect((await send(`${node.url}/health`, {})).status).toBe(200);
  });

  it('answers 503 pool_unavailable (never a 500) when the store fails', async () => {
    const node = await startNode();
    const payer = await wallet(node);
    const { wallet: recipient } = await wallet(node);
    await fund(node, payer.wallet, [DEPOSIT]);
    const body = await heldTransfer(payer, recipient.address, 1_000n);
    // the twin of the refusal below: a body the schema refuses never reaches the store
    expect((await post(node.url, { ...body, nullifier: 'x' })).status).toBe(400);
    await node.store.close();
    const down = await post(node.url, body);
    expect(down.status, down.text).toBe(503);
    expect(down.json).toEqual({ error: 'pool_unavailable', message: expect.any(String) });
  });

  it('rate-limits per client with the hand-over limit: 429 rate_limited with Retry-After', async () => {
    const node = await startNode(undefined, { handOver: { max: 2, timeWindowMs: 60_000 } });
    expect((await post(node.url, { nope: 1 })).status).toBe(400);
    expect((await post(node.url, { nope: 1 })).status).toBe(400);
    const limited = await post(node.url, { nope: 1 });
    expectRefusal(limited, 'third request', 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-limit')).toBeNull();
    // /proofs counts its own requests (the same limit, another count)
    const proofs = await send(`${node.url}/proofs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(proofs.status).toBe(400);
  });

  it('CORS: the preflight of /transfers answers the configured origins only; the POST carries allow-origin on success and refusal; no preflight without CORS', async () => {
    const node = await startNode(undefined, { corsOrigins: [SHOP] });
    const preflight = (url: string, origin: string) =>
      send(`${url}/transfers`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    const ok = await preflight(node.url, SHOP);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(ok.headers.get('access-control-allow-methods')).toBe('POST');
    expect(ok.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(ok.headers.get('vary')).toBe('Origin');
    const evil = await preflight(node.url, 'https://evil.example');
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();

    const payer = await wallet(node);
    const { wallet: recipient } = await wallet(node);
    await fund(node, payer.wallet, [DEPOSIT]);
    const body = await heldTransfer(payer, recipient.address, 1_000n);
    const refused = await post(node.url, { ...body, scheme: 'exact' }, { origin: SHOP });
    expectRefusal(refused, 'refused with an origin', 'unsupported_scheme');
    expect(refused.headers.get('access-control-allow-origin')).toBe(SHOP);
    const invalid = await post(node.url, { nope: 1 }, { origin: SHOP });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('access-control-allow-origin')).toBe(SHOP);
    const accepted = await post(node.url, body, { origin: SHOP });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.headers.get('access-control-allow-origin')).toBe(SHOP);
    const other = await post(node.url, body, { origin: 'https://evil.example' });
    expectRefusal(other, 'another origin', 'duplicate_settlement');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    // the twin: a node without CORS origins has no preflight and no allow-origin
    const plain = await startNode();
    expect((await preflight(plain.url, SHOP)).status).toBe(404);
    const posted = await post(plain.url, { nope: 1 }, { origin: SHOP });
    expect(posted.status).toBe(400);
    expect(posted.headers.get('access-control-allow-origin')).toBeNull();
  });
});
