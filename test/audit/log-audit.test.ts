// The audit of the public log (src/audit/log-audit.ts) on a real pool: a wallet's deposits, a merge,
// a transfer, an exit whose payout failed (its refund) — every proof real, every page the store's
// public read — against the claim the pool's attester would post (src/chain/attester.ts). A clean
// pool has no finding and is checked up to the claim. Must-fail twins, each tampering a copy of the
// real SQLite store: a settlement written straight into the store (random nullifier, a stand-in
// proof), an archived proof deleted, a nullifier spent twice, a recipient note rewritten, a leaf
// replaced, an event rewritten after its attestation, and inflated totals — each found under its
// code.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { extendLogDigests } from '../../src/audit/index.js';
import { type AttestedClaim, auditLog } from '../../src/audit/log-audit.js';
import { claimOfLatest } from '../../src/chain/attester.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { openStore, type PoolStore } from '../../src/ledger/index.js';
import { settlementOp } from '../ledger/helpers/ops.js';
import { rawSql } from '../ledger/helpers/raw-sql.js';
import { writeRealPool } from './helpers/real-pool.js';

let core: PrivStarkCore;
let base: string;
const copies: string[] = [];

/** A copy of the real pool's store, open. */
async function copy(): Promise<{ store: PoolStore; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-audit-copy-'));
  copies.push(dataDir);
  cpSync(base, dataDir, { recursive: true });
  return { store: await openStore(core, { dataDir }), dataDir };
}

/** The claim the attester would post now, as the chain would hold it. */
async function claimNow(store: PoolStore): Promise<AttestedClaim> {
  const at = await claimOfLatest({
    store,
    extendLogDigests: () => extendLogDigests(store),
    chainId: 1,
  });
  return at!.claim;
}

/** A checkpoint of whatever was written since, and its digest recorded. */
async function checkpoint(store: PoolStore): Promise<void> {
  await store.checkpoint(Date.now(), 0);
  await extendLogDigests(store);
}

beforeAll(async () => {
  core = await loadCore();
  base = mkdtempSync(join(tmpdir(), 'priv-stark-audit-base-'));
  await writeRealPool(core, base, [300_000n, 200_000n, 150_000n]);
}, 120_000);
afterAll(() => {
  for (const dir of [base, ...copies]) rmSync(dir, { recursive: true, force: true });
});

describe('the log audit', () => {
  it('finds nothing on a real pool and checks it up to the attested checkpoint', async () => {
    const { store } = await copy();
    try {
      const claim = await claimNow(store);
      const result = await auditLog(core, store, [claim]);
      expect(result.findings).toEqual([]);
      expect(result.incomplete).toBeNull();
      const events = (await store.publishedState()).events;
      expect(result.checkedUpTo).toEqual({ seq: claim.seq, eventId: events });
      // Three deposits, a merge, a transfer, an exit and its refund; four proofs.
      expect(result.events).toBe(7);
      expect(result.proofsVerified).toBe(3);
    } finally {
      await store.close();
    }
  });
});

describe('must-fail twins: each tampering of the real store is found under its code', () => {
  /** Tampers a copy, attests it as the pool would, audits it: the counts by code. */
  async function audit(
    tamper: (store: PoolStore, sql: (text: string) => Promise<void>) => Promise<void>,
    after?: (store: PoolStore, sql: (text: string) => Promise<void>) => Promise<void>,
    claimed: (claim: AttestedClaim) => AttestedClaim = (c) => c,
  ) {
    const { store, dataDir } = await copy();
    const sql = (text: string) => rawSql('sqlite', { dataDir }, text);
    try {
      await tamper(store, sql);
      const claim = claimed(await claimNow(store));
      await after?.(store, sql);
      return (await auditLog(core, store, [claim])).counts;
    } finally {
      await store.close();
    }
  }

  it('a settlement written straight into the store: invalid_proof, recipient_note_mismatch', async () => {
    const counts = await audit(async (store) => {
      await store.apply([settlementOp(core)], Date.now());
      await checkpoint(store);
    });
    expect(counts.invalid_proof).toBe(1);
    expect(counts.recipient_note_mismatch).toBe(1);
  });

  it('an archived proof deleted: proof_missing', async () => {
    const counts = await audit(async (store, sql) => {
      const [first] = await store.archivedProofs(0, 100);
      await sql(
        `DELETE FROM proof_archive WHERE event_id = (SELECT id FROM events WHERE position = ${first!.id})`,
      );
    });
    expect(counts.proof_missing).toBe(1);
  });

  it('a nullifier spent twice: nullifier_reused', async () => {
    const counts = await audit(async (store, sql) => {
      const events = await store.publishedEvents(0, 100);
      const [merge] = events.filter((e) => e.kind === 'transition');
      const [transfer] = events.filter((e) => e.kind === 'settlement');
      if (merge?.kind !== 'transition' || transfer?.kind !== 'settlement')
        throw new Error('no events');
      await sql(
        `UPDATE events SET nullifier = '${merge.nullifiers[0]}' WHERE position = ${transfer.id}`,
      );
    });
    expect(counts.nullifier_reused).toBe(1);
  });

  it('a recipient note rewritten: recipient_note_mismatch, leaf_unexplained', async () => {
    const counts = await audit(async (store, sql) => {
      const [transfer] = (await store.publishedEvents(0, 100)).filter(
        (e) => e.kind === 'settlement',
      );
      await sql(
        `UPDATE events SET recipient_note = '0x${'11'.repeat(32)}' WHERE position = ${transfer!.id}`,
      );
    });
    expect(counts.recipient_note_mismatch).toBe(1);
    expect(counts.leaf_unexplained).toBe(1);
  });

  it('a leaf replaced: leaf_unexplained, and the attested root is not the leaves’ (log_rewritten)', async () => {
    const counts = await audit(
      async () => undefined,
      (_store, sql) => sql(`UPDATE leaves SET commitment = '0x${'22'.repeat(32)}' WHERE idx = 1`),
    );
    expect(counts.leaf_unexplained).toBe(1);
    expect(counts.log_rewritten).toBe(1);
  });

  it('an event rewritten after its attestation: log_rewritten', async () => {
    const counts = await audit(
      async () => undefined,
      async (store, sql) => {
        const [deposit] = (await store.publishedEvents(0, 100)).filter((e) => e.kind === 'deposit');
        await sql(`UPDATE events SET amount = '999999' WHERE position = ${deposit!.id}`);
      },
    );
    expect(counts.log_rewritten).toBe(1);
    expect(counts.totals_mismatch).toBe(1);
  });

  it('totals inflated in the attestation: totals_mismatch', async () => {
    const counts = await audit(
      async () => undefined,
      undefined,
      (claim) => ({
        ...claim,
        totals: [claim.totals[0] + 1n, claim.totals[1], claim.totals[2], claim.totals[3]],
      }),
    );
    expect(counts).toEqual({ totals_mismatch: 1 });
  });
});
