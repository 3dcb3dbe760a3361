// The proof archive on both stores (src/ledger/proof-archive.ts): every applied settlement and
// transition keeps its proof in the commit that applies it — a payment that did not settle keeps
// nothing — served by public position once published, and pruned in whole pages only.

import { describe, expect, it } from 'vitest';

import { type DigestHex, randomDigest } from '../../src/core/index.js';
import {
  ARCHIVE_PAGE_SIZE,
  Ledger,
  type PoolStore,
  settlementId,
  type TransitionOp,
} from '../../src/ledger/index.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { depositOp, handOverOp, settlementOp } from './helpers/ops.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const NOW = 1_800_000_000_000;

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

/** Distinct proof bytes, each naming its number. */
const bytes = (n: number) => new Uint8Array([0xaa, n, n + 1, n + 2]);

/** A merge of two fresh notes proven by `proof`. */
const transitionOp = (proof: Uint8Array, root: DigestHex, ctx: DigestHex): TransitionOp => {
  const first = randomDigest();
  return {
    kind: 'transition',
    transitionId: settlementId(first),
    nullifiers: [first, randomDigest()],
    outputs: [randomDigest(), randomDigest()],
    memo: ['1', '2'],
    exit: '0',
    destination: null,
    refund: randomDigest(),
    proof: { root, ctx, bytes: proof },
  };
};

/** Every archived proof of a store, by position, as `[position, first byte after the tag]`. */
async function archived(store: PoolStore): Promise<[number, number][]> {
  return (await store.archivedProofs(0, 1000)).map((a) => [a.id, a.proof[1] ?? -1]);
}

describe.each(kinds)('the proof archive on the %s store', (kind) => {
  const h = storeHarness(kind);

  it('keeps each settlement’s and transition’s proof with its event; served once published, by position', async () => {
    const { store } = await h.fresh();
    const core = h.core();
    const [root, ctx] = [randomDigest(), randomDigest()];
    const handOver = handOverOp({ proof: bytes(3) });
    const [inline, merge] = [
      settlementOp(core, { proof: { root, ctx, bytes: bytes(1) } }),
      transitionOp(bytes(2), root, ctx),
    ];
    await store.apply([depositOp(), inline, merge, handOver], NOW);
    // Settled by the reference of a proof stored by an earlier group: its stored bytes are kept.
    const byReference = settlementOp(core, {
      nullifier: handOver.nullifier,
      proof: { root, ctx, reference: handOver.reference },
    });
    expect((await store.apply([byReference], NOW + 1))[0]).toMatchObject({ ok: true });
    expect(await store.handedOver(handOver.reference)).toBeNull();
    // Nothing is public before its checkpoint.
    expect(await store.archivedProofs(0, 100)).toEqual([]);
    await store.checkpoint(NOW + 2, 0);
    const events = await store.publishedEvents(0, 100);
    const positionOf = (nullifier: string) =>
      events.find((e) =>
        e.kind === 'transition'
          ? e.nullifiers[0] === nullifier
          : 'nullifier' in e && e.nullifier === nullifier,
      )?.id;
    const expected: [number, number][] = [
      [positionOf(inline.nullifier)!, 1],
      [positionOf(merge.nullifiers[0])!, 2],
      [positionOf(byReference.nullifier)!, 3],
    ];
    expect(await archived(store)).toEqual(expected.sort((a, b) => a[0] - b[0]));
    // The deposit has none; every archived proof carries the anchor and context it was bound to.
    const deposit = events.find((e) => e.kind === 'deposit')!;
    const all = await store.archivedProofs(0, 100);
    expect(all.map((a) => a.id)).not.toContain(deposit.id);
    expect(all.every((a) => a.root === root && a.ctx === ctx)).toBe(true);
    // A window reads only its positions.
    const last = Math.max(...all.map((a) => a.id));
    expect((await store.archivedProofs(last - 1, 1)).map((a) => a.id)).toEqual([last]);
  });

  it('must-fail twin: a hand-over never settled, a refused settlement or a vanished reference keep nothing', async () => {
    const { store } = await h.fresh();
    const core = h.core();
    const [root, ctx] = [randomDigest(), randomDigest()];
    const spent = settlementOp(core, { proof: { root, ctx, bytes: bytes(1) } });
    await store.apply([spent], NOW);
    const before = await store.state();
    const results = await store.apply(
      [
        handOverOp({ proof: bytes(7) }),
        // The same nullifier again: refused, its proof not kept.
        settlementOp(core, { nullifier: spent.nullifier, proof: { root, ctx, bytes: bytes(8) } }),
        // A reference no row holds (pruned after the ledger looked): refused, nothing applied.
        settlementOp(core, { proof: { root, ctx, reference: randomDigest() } }),
      ],
      NOW + 1,
    );
    expect(results.map((r) => (r.ok ? r.kind : r.reason))).toEqual([
      'handover',
      'duplicate_settlement',
      'unknown_proof_reference',
    ]);
    expect(await store.state()).toMatchObject({ size: before.size, events: before.events });
    await store.checkpoint(NOW + 2, 0);
    expect(await archived(store)).toEqual([[1, 1]]);
  });

  it('prunes whole pages published before the cutoff, never a page in part, and says how far', async () => {
    const { store } = await h.fresh();
    const core = h.core();
    const [root, ctx] = [randomDigest(), randomDigest()];
    // Three checkpoints, an hour apart, publishing 3, 2 and 2 settlements.
    let n = 0;
    for (const [hour, count] of [
      [0, 3],
      [1, 2],
      [2, 2],
    ] as const) {
      const at = NOW + hour * 3_600_000;
      for (let i = 0; i < count; i += 1)
        await store.apply([settlementOp(core, { proof: { root, ctx, bytes: bytes(++n) } })], at);
      await store.checkpoint(at, 0);
    }
    expect((await archived(store)).map(([id]) => id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Before the first checkpoint: nothing is old enough.
    expect(await store.pruneArchive(NOW, 2)).toEqual({ prunedThrough: 0, dropped: 0 });
    // After the second: positions 1–5 are old enough, pages of two → 1–4 go, 5 stays with 6.
    expect(await store.pruneArchive(NOW + 3_600_001, 2)).toEqual({ prunedThrough: 4, dropped: 4 });
    expect((await archived(store)).map(([id]) => id)).toEqual([5, 6, 7]);
    expect(await store.archiveState()).toEqual({ prunedThrough: 4, legacyThrough: 0 });
    // Again: nothing more to drop; an earlier cutoff never moves it back.
    expect(await store.pruneArchive(NOW + 3_600_001, 2)).toEqual({ prunedThrough: 4, dropped: 0 });
    expect(await store.pruneArchive(NOW, 2)).toEqual({ prunedThrough: 4, dropped: 0 });
    expect((await archived(store)).map(([id]) => id)).toEqual([5, 6, 7]);
  });

  it("the ledger's timer prunes the pages past the retention, once the clock passes it — and not before", async () => {
    const { store } = await h.fresh();
    const core = h.core();
    const [root, ctx] = [randomDigest(), randomDigest()];
    let now = NOW;
    const day = 86_400_000;
    const ledger = new Ledger({
      core,
      store,
      clock: () => now,
      checkpointIntervalMs: 20,
      proofRetentionMs: day,
    });
    const ops = Array.from({ length: ARCHIVE_PAGE_SIZE + 1 }, (_, i) =>
      settlementOp(core, { proof: { root, ctx, bytes: bytes(i % 200) } }),
    );
    await store.apply(ops, now);
    await ledger.checkpoint();
    const waitForTicks = () => new Promise((resolve) => setTimeout(resolve, 200));
    try {
      ledger.start();
      // Within the retention: every proof stays.
      now += day - 60_000;
      await waitForTicks();
      expect((await store.archiveState()).prunedThrough).toBe(0);
      // Past it: the full page goes, the position after it stays.
      now += 2 * 60_000;
      for (let i = 0; i < 50 && (await store.archiveState()).prunedThrough === 0; i += 1)
        await waitForTicks();
      expect(await store.archiveState()).toMatchObject({ prunedThrough: ARCHIVE_PAGE_SIZE });
      expect((await archived(store)).map(([id]) => id)).toEqual([ARCHIVE_PAGE_SIZE + 1]);
    } finally {
      await ledger.stop();
    }
  });
});
