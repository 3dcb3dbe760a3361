// The pool's recorded log digests (src/audit/log-digester.ts) on both stores: after each
// checkpoint, the digest of the public log up to its last event, each event with its archived
// proof's hash — equal to what a reader recomputes from the published events and the archive, from
// genesis, whatever the steps it was extended in; an event rewritten in the store afterwards no
// longer recomputes to it (the twin); a proof missing where one is needed stops the digester.

import { describe, expect, it } from 'vitest';

import {
  digestHex,
  extendLogDigests,
  LogDigestGapError,
  logDigest,
  proofHashOf,
} from '../../src/audit/index.js';
import { randomDigest } from '../../src/core/index.js';
import type { PoolStore, StoreOp } from '../../src/ledger/index.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { depositOp, handOverOp, settlementOp } from '../ledger/helpers/ops.js';
import { rawSql } from '../ledger/helpers/raw-sql.js';
import { STORE_KINDS, storeHarness } from '../ledger/helpers/stores.js';

const NOW = 1_800_000_000_000;

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

/** The digest of the first `events` positions, recomputed from the public pages alone. */
async function recomputed(store: PoolStore, events: number): Promise<string> {
  const log = await store.publishedEvents(0, events);
  const proofs = new Map((await store.archivedProofs(0, events)).map((p) => [p.id, p.proof]));
  return digestHex(
    logDigest(
      log.map((event) => ({ event, proofHash: proofHashOf(proofs.get(event.id) ?? null) })),
    ),
  );
}

describe.each(kinds)('the log digests on the %s store', (kind) => {
  const h = storeHarness(kind);

  /** A group of a deposit and two settlements, each settlement with its own proof bytes. */
  const group = (tag: number): StoreOp[] => {
    const [root, ctx] = [randomDigest(), randomDigest()];
    return [
      depositOp(),
      settlementOp(h.core(), { proof: { root, ctx, bytes: new Uint8Array([tag, 1]) } }),
      settlementOp(h.core(), { proof: { root, ctx, bytes: new Uint8Array([tag, 2]) } }),
    ];
  };

  it('records after each checkpoint what a reader recomputes from the pages, however it was extended', async () => {
    const { store } = await h.fresh();
    expect(await extendLogDigests(store)).toEqual([]);
    await store.apply(group(1), NOW);
    await store.checkpoint(NOW, 0);
    await store.apply(group(2), NOW + 1);
    await store.checkpoint(NOW + 1, 0);
    const first = await extendLogDigests(store);
    expect(first.map((r) => [r.seq, r.events])).toEqual([
      [1, 3],
      [2, 6],
    ]);
    for (const r of first) expect(r.digest).toBe(await recomputed(store, r.events));
    // Later checkpoints extend from the newest record; a second node finds nothing left.
    await store.apply(group(3), NOW + 2);
    await store.checkpoint(NOW + 2, 0);
    const [third] = await extendLogDigests(store);
    expect(third).toEqual({ seq: 3, events: 9, digest: await recomputed(store, 9) });
    expect(await extendLogDigests(store)).toEqual([]);
    expect(await store.logDigests(0, 10)).toEqual([...first, third]);
    expect(await store.latestLogDigest()).toEqual(third);
  });

  it('must-fail twin: an event rewritten after its digest no longer recomputes to it', async () => {
    const { store, config } = await h.fresh();
    await store.apply(group(1), NOW);
    await store.checkpoint(NOW, 0);
    const [recorded] = await extendLogDigests(store);
    expect(await recomputed(store, 3)).toBe(recorded!.digest);
    // The operator inflates a settlement's amount straight in the store.
    await rawSql(kind, config, `UPDATE events SET amount = '999999' WHERE kind = 'settlement'`);
    expect(await recomputed(store, 3)).not.toBe(recorded!.digest);
  });

  it("keeps each archived proof's SHA-256 beside it, inline or handed over, and digests with it", async () => {
    const { store } = await h.fresh();
    // Several hand-overs in one group: each row's hash is its own proof's.
    const handed = [[9, 8, 7], [6, 6], [4]].map((bytes) =>
      handOverOp({ proof: new Uint8Array(bytes) }),
    );
    await store.apply(handed, NOW);
    const [root, ctx] = [randomDigest(), randomDigest()];
    await store.apply(
      [
        depositOp(),
        settlementOp(h.core(), { proof: { root, ctx, bytes: new Uint8Array([5, 5]) } }),
        ...handed.map((op) =>
          settlementOp(h.core(), {
            nullifier: op.nullifier,
            proof: { root: op.root, ctx: op.ctx, reference: op.reference },
          }),
        ),
      ],
      NOW + 1,
    );
    await store.checkpoint(NOW + 1, 0);
    const archived = await store.archivedProofs(0, 10);
    // Published in nullifier order: any proof may come first.
    expect(archived.map((p) => [...p.proof].join()).sort()).toEqual(['4', '5,5', '6,6', '9,8,7']);
    expect(await store.archivedProofHashes(0, 10)).toEqual(
      archived.map((p) => ({ id: p.id, hash: proofHashOf(p.proof) })),
    );
    // No proof is read back: the kept hashes are what it folds in.
    const [recorded] = await extendLogDigests(store, () => {
      throw new Error('a proof was read back and hashed');
    });
    expect(recorded!.digest).toBe(await recomputed(store, recorded!.events));
  });

  it("must-fail twin: a kept hash that is not its proof's gives a digest no reader recomputes", async () => {
    const { store, config } = await h.fresh();
    await store.apply(group(1), NOW);
    await store.checkpoint(NOW, 0);
    await rawSql(
      kind,
      config,
      kind === 'sqlite'
        ? 'UPDATE proof_archive SET proof_sha256 = zeroblob(32)'
        : "UPDATE proof_archive SET proof_sha256 = decode(repeat('00', 32), 'hex')",
    );
    const [recorded] = await extendLogDigests(store);
    expect(recorded!.digest).not.toBe(await recomputed(store, 3));
  });

  it('reads and hashes the proofs of a page where some were kept without a hash, the others as kept', async () => {
    const { store, config } = await h.fresh();
    await store.apply(group(1), NOW);
    await store.apply(group(2), NOW + 1);
    await store.checkpoint(NOW + 1, 0);
    // One of the four archived proofs as an older release left it: no hash.
    await rawSql(
      kind,
      config,
      'UPDATE proof_archive SET proof_sha256 = NULL WHERE event_id = (SELECT MIN(event_id) FROM proof_archive)',
    );
    const hashes = (await store.archivedProofHashes(0, 10)).map((p) => p.hash);
    expect(hashes.filter((hash) => hash === null)).toHaveLength(1);
    expect(hashes).toHaveLength(4);
    const [recorded] = await extendLogDigests(store);
    expect(recorded!.digest).toBe(await recomputed(store, recorded!.events));
  });

  it('stops at a proof the archive should hold but does not; an event older than the archive folds in without one', async () => {
    const { store, config } = await h.fresh();
    await store.apply(group(1), NOW);
    await store.checkpoint(NOW, 0);
    await rawSql(kind, config, 'DELETE FROM proof_archive');
    await expect(extendLogDigests(store)).rejects.toBeInstanceOf(LogDigestGapError);
    expect(await store.logDigests(0, 10)).toEqual([]);
    // The same events, applied before the archive existed: no proof hash, and a digest.
    await rawSql(kind, config, 'UPDATE archive_state SET legacy_events = 3');
    const [legacy] = await extendLogDigests(store);
    expect(legacy).toEqual({ seq: 1, events: 3, digest: await recomputed(store, 3) });
  });
});

describe("the pool node's proof hash (Node's SHA-256)", () => {
  const h = storeHarness('sqlite');

  it('is the audit proof hash, so the digests it records are those a browser reader recomputes', async () => {
    const { nodeProofHash } = await import('../../src/pool-node/log-digest-timer.js');
    for (const size of [0, 1, 63, 64, 65, 81_772, 83_736]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 131 + size) & 0xff);
      expect(Buffer.from(nodeProofHash(bytes)).toString('hex')).toBe(
        Buffer.from(proofHashOf(bytes)).toString('hex'),
      );
    }
  });

  it('hashes the bytes of proofs kept without a hash (before migration 9) with the hash it is given; the twin: another hash, other digests', async () => {
    const { store, config } = await h.fresh();
    const [root, ctx] = [randomDigest(), randomDigest()];
    await store.apply(
      [
        depositOp(),
        settlementOp(h.core(), { proof: { root, ctx, bytes: new Uint8Array([7, 7]) } }),
      ],
      NOW,
    );
    await store.checkpoint(NOW, 0);
    await rawSql('sqlite', config, 'UPDATE proof_archive SET proof_sha256 = NULL');
    expect((await store.archivedProofHashes(0, 10)).map((p) => p.hash)).toEqual([null]);
    const { nodeProofHash } = await import('../../src/pool-node/log-digest-timer.js');
    const [right] = await extendLogDigests(store, nodeProofHash);
    expect(right!.digest).toBe(await recomputed(store, right!.events));
    await rawSql('sqlite', config, 'DELETE FROM log_digests');
    const wrong = await extendLogDigests(store, (proof) =>
      proofHashOf(new Uint8Array([...proof, 0])),
    );
    expect(wrong.at(-1)!.digest).not.toBe(await recomputed(store, wrong.at(-1)!.events));
  });
});
