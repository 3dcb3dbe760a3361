// POST /transitions on the pool node (merge and split of notes, proven with the transition
// statement), over real loopback listeners on both stores (a SQLite file and a throwaway
// PostgreSQL 15): a wallet merges two deposits and splits a note privately, every note comes back
// to a wallet restored from the key alone, the value is conserved, and each archived proof verifies
// again from the public event and archive page alone; settle-once (a repost, copies at
// once, a note spent by a payment first); the binding (another expiry, another memo, a spend proof
// in place of a transition proof); hostile bodies (fast-check) always a 4xx of the registry and
// nothing applied. Each refusal has a twin that is applied.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { UnpayableRequirementsError, Wallet } from '../../src/client/index.js';
import { type DigestHex, randomDigest } from '../../src/core/index.js';
import { POOL_NODE_REASONS, REASON_CODES } from '../../src/scheme/index.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { ledgerProblems } from '../ledger/helpers/invariants.js';
import { STORE_KINDS, storeHarness } from '../ledger/helpers/stores.js';
import { postTransition as post, transitionStack } from './helpers/transition-stack.js';

const ALLOWED_CODES = new Set<string>([
  ...REASON_CODES,
  ...Object.keys(POOL_NODE_REASONS),
  'invalid_request',
]);

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

describe.each(kinds)('POST /transitions on the %s store', (kind) => {
  const { startNode, fundedWallet } = transitionStack(storeHarness(kind));

  function unspent(wallet: Wallet): bigint[] {
    return wallet
      .notes()
      .filter((n) => !n.spent)
      .map((n) => BigInt(n.value))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  it('merges two notes and splits one privately; a wallet restored from the key finds every note', async () => {
    const node = await startNode();
    const { wallet } = await fundedWallet(node, [300_000n, 200_000n]);
    const merged = await wallet.mergeNotes();
    expect(merged.outputIndexes).toEqual([2, 3]);
    await node.ledger.checkpoint();
    await wallet.sync();
    expect(unspent(wallet)).toEqual([500_000n]);
    const big = wallet.notes().find((n) => !n.spent)!;
    await wallet.splitPrivately(big.commitment, 120_000n);
    await node.ledger.checkpoint();
    await wallet.sync();
    expect(unspent(wallet)).toEqual([120_000n, 380_000n]);
    // The pool saw nothing of the values: the events carry no amount.
    const { events } = await node.operator.events(0);
    const transitions = events.filter((e) => e.kind === 'transition');
    expect(transitions).toHaveLength(2);
    for (const event of transitions)
      expect(JSON.stringify(event)).not.toMatch(/120000|380000|500000/);
    // Restored from the key alone: the same notes, the same spent ones.
    const restored = await Wallet.create({
      core: node.core,
      pool: node.url,
      sk: wallet.spendingKey,
    });
    await restored.sync();
    expect(unspent(restored)).toEqual([120_000n, 380_000n]);
    expect(await ledgerProblems(node.core, node.store)).toEqual([]);
    // Deposits − withdrawals (none) = unspent notes.
    expect((await node.store.state()).depositTotal).toBe('500000');
    // Anyone verifies both proofs again from what is public: the published event and the archive
    // page, which serves the refund note the event does not show (docs/audit.md); another refund
    // does not verify (the twin).
    const published = await node.store.publishedEvents(0, 100);
    const page = (await (await fetch(`${node.url}/archive?page=0`)).json()) as {
      proofs: {
        id: number;
        root: DigestHex;
        ctx: DigestHex;
        refund: DigestHex | null;
        proof: string;
      }[];
    };
    const merges = published.filter((e) => e.kind === 'transition');
    expect(merges).toHaveLength(2);
    for (const event of merges) {
      if (event.kind !== 'transition') continue;
      const archived = page.proofs.find((p) => p.id === event.id)!;
      expect(archived.refund).toMatch(/^0x[0-9a-f]{64}$/);
      const inputs = {
        root: archived.root,
        nullifiers: event.nullifiers,
        outputs: event.outputs,
        exit: '0',
        ctx: archived.ctx,
        memo: event.memo,
        refund: archived.refund!,
      };
      const proof = new Uint8Array(Buffer.from(archived.proof, 'base64'));
      expect(await node.core.verifyTransition(proof, inputs)).toEqual({ ok: true });
      expect(
        (await node.core.verifyTransition(proof, { ...inputs, refund: randomDigest() })).ok,
      ).toBe(false);
    }
  });

  it('applies once: a repost, copies at once, and a note a payment spent first', async () => {
    const node = await startNode();
    const { wallet, capture } = await fundedWallet(node, [300_000n, 200_000n]);
    const receipt = await wallet.mergeNotes();
    const body = capture.bodies[0]!;
    const again = await post(node.url, body);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({
      error: 'duplicate_settlement',
      transaction: receipt.transaction,
    });
    // Two other notes, the same transition sent eight times at once: one applies.
    const second = await fundedWallet(node, [50_000n, 60_000n]);
    second.capture.hold = true;
    await expect(second.wallet.mergeNotes()).rejects.toThrow();
    const held = second.capture.bodies[0]!;
    const replies = await Promise.all(Array.from({ length: 8 }, () => post(node.url, held)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of replies.filter((r) => r.status !== 200))
      expect(r.json.error).toBe('duplicate_settlement');
    expect(await ledgerProblems(node.core, node.store)).toEqual([]);
  });

  it('refuses a transition whose note a transfer spent first, and applies its twin', async () => {
    const node = await startNode();
    const { wallet, capture } = await fundedWallet(node, [300_000n, 200_000n]);
    capture.hold = true;
    await expect(wallet.mergeNotes()).rejects.toThrow();
    const held = capture.bodies[0]!;
    capture.hold = false;
    // The larger note pays a transfer first.
    const other = await Wallet.create({ core: node.core, pool: node.url });
    const big = wallet.notes().find((n) => n.value === '300000')!;
    await wallet.transfer(other.address, 1_000n, { note: big.commitment });
    const refused = await post(node.url, held);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toBe('nullifier_already_spent');
    // Twin: after a checkpoint and a sync, a merge of what is left applies.
    await node.ledger.checkpoint();
    await wallet.sync();
    await expect(wallet.mergeNotes()).resolves.toMatchObject({ outputIndexes: [4, 5] });
    expect(await ledgerProblems(node.core, node.store)).toEqual([]);
  });

  it('a payment of a note a transition spent settles nothing; another transition of that note is not the applied one', async () => {
    const node = await startNode();
    const { wallet, capture } = await fundedWallet(node, [300_000n, 200_000n]);
    const other = await Wallet.create({ core: node.core, pool: node.url });
    // A transfer built from the 200,000 note, held back before it reaches the pool.
    let transferBody: unknown = null;
    const spy = await Wallet.create({
      core: node.core,
      pool: node.url,
      sk: wallet.spendingKey,
      handOverFetch: async (input, init) => {
        if (String(input).endsWith('/transfers')) transferBody = JSON.parse(String(init?.body));
        throw new Error('held back by the test');
      },
    });
    await spy.sync();
    await expect(spy.transfer(other.address, 1_000n)).rejects.toThrow();
    expect(transferBody).not.toBeNull();
    // A private split of that note applies first: the transfer is refused as spent, and is told
    // no payment settled (not duplicate_settlement, which a merchant reads as paid).
    const small = wallet.notes().find((n) => n.value === '200000')!;
    const split = await wallet.splitPrivately(small.commitment, 50_000n);
    const transfer = await fetch(`${node.url}/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(transferBody),
    });
    expect(transfer.status).toBe(409);
    expect((await transfer.json()).error).toBe('nullifier_already_spent');
    // Two transitions of one first note share an id: the one not applied is refused as spent,
    // the applied one's repost learns its id.
    const big = wallet.notes().find((n) => n.value === '300000')!;
    capture.hold = true;
    await expect(wallet.splitPrivately(big.commitment, 100_000n)).rejects.toThrow();
    const notApplied = capture.bodies.at(-1)!;
    capture.hold = false;
    const applied = await wallet.splitPrivately(big.commitment, 120_000n);
    const appliedBody = capture.bodies.at(-1)!;
    const refused = await post(node.url, notApplied);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toBe('nullifier_already_spent');
    const repost = await post(node.url, appliedBody);
    expect(repost.json).toMatchObject({
      error: 'duplicate_settlement',
      transaction: applied.transaction,
    });
    expect(split.transaction).not.toBe(applied.transaction);
    expect(await ledgerProblems(node.core, node.store)).toEqual([]);
  });

  it('merges dust into a spendable note by default; dust alone is refused before any proof', async () => {
    const node = await startNode();
    const { wallet } = await fundedWallet(node, [400n, 500n, 300_000n]);
    // 400 + 500 is below the minimum output: the smallest note pairs with the next that reaches it.
    await wallet.mergeNotes();
    await node.ledger.checkpoint();
    await wallet.sync();
    expect(unspent(wallet)).toEqual([500n, 300_400n]);
    const { wallet: dusty } = await fundedWallet(node, [400n, 500n]);
    await expect(dusty.mergeNotes()).rejects.toBeInstanceOf(UnpayableRequirementsError);
    const [a, b] = dusty.notes().map((n) => n.commitment);
    await expect(dusty.mergeNotes([a!, b!])).rejects.toBeInstanceOf(UnpayableRequirementsError);
    expect(dusty.notes().filter((n) => n.spent)).toEqual([]);
  });

  it('binds expiry and memo; a spend proof is no transition proof', async () => {
    const node = await startNode();
    const { wallet, capture } = await fundedWallet(node, [300_000n, 200_000n]);
    capture.hold = true;
    await expect(wallet.mergeNotes()).rejects.toThrow();
    const body = capture.bodies[0]!;
    const refusals = [
      { ...body, expiry: body.expiry + 1 },
      { ...body, memo: [String(BigInt(body.memo[0]) ^ 1n), body.memo[1]] },
      { ...body, outputs: [body.outputs[1], body.outputs[0]] },
      { ...body, nullifiers: [body.nullifiers[1], body.nullifiers[0]] },
    ];
    for (const refused of refusals) {
      const reply = await post(node.url, refused);
      expect(reply.status, JSON.stringify(reply.json)).toBe(422);
      expect(reply.json.error).toBe('invalid_priv_stark_proof');
    }
    // A payment's (spend) proof in the body: refused as any other proof.
    const payer = await fundedWallet(node, [90_000n]);
    const other = await Wallet.create({ core: node.core, pool: node.url });
    let spendProof = '';
    const spy: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/transfers')) spendProof = JSON.parse(String(init?.body)).proof;
      throw new Error('held');
    };
    const spyWallet = await Wallet.create({
      core: node.core,
      pool: node.url,
      sk: payer.wallet.spendingKey,
      handOverFetch: spy,
    });
    await spyWallet.sync();
    await expect(spyWallet.transfer(other.address, 1_000n)).rejects.toThrow();
    expect((await post(node.url, { ...body, proof: spendProof })).json.error).toBe(
      'invalid_priv_stark_proof',
    );
    // Twin: the body as built applies.
    expect((await post(node.url, body)).status).toBe(200);
    expect(await ledgerProblems(node.core, node.store)).toEqual([]);
  });

  it('answers hostile bodies with a 4xx of the registry and applies nothing', async () => {
    const node = await startNode();
    const { wallet, capture } = await fundedWallet(node, [300_000n, 200_000n]);
    capture.hold = true;
    await expect(wallet.mergeNotes()).rejects.toThrow();
    const body = capture.bodies[0]! as unknown as Record<string, unknown>;
    const before = await node.store.state();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(body)),
        fc.oneof(
          fc.anything(),
          fc.string(),
          fc.integer(),
          fc.constant(null),
          fc.array(fc.string(), { maxLength: 3 }),
        ),
        async (key, value) => {
          const reply = await post(node.url, { ...body, [key]: value });
          if (reply.status === 200) return; // an equal value
          expect(reply.status).toBeGreaterThanOrEqual(400);
          expect(reply.status).toBeLessThan(500);
          expect(ALLOWED_CODES.has(String(reply.json?.error))).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
    const after = await node.store.state();
    expect(after.size).toBe(before.size);
    expect((await post(node.url, body)).status).toBe(200);
  });
});
