// Incremental audits (`--state`), split views (`--compare`) and an archive pruned before the audit
// (src/audit/log-audit.ts, audit-state.ts, split-view.ts) on a real pool: a wallet's deposits, a
// merge, a transfer, an exit refunded — every proof real — audited once, then again after more
// events and a newer attestation, resumed from the first audit's state. Each is paired with what
// must fail: a resumed audit still finds a rewrite past its state and inflated totals; what it does
// not re-read (an event rewritten before its state) only `--full` finds; a state of another escrow
// or of another shape is refused; two readers served different tails find a split view; an audit
// of a pruned archive with no state is never complete.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  type AttestedClaim,
  type AuditLogSource,
  AuditStateError,
  auditLog,
  compareTails,
  extendLogDigests,
  parseAuditState,
  serializeAuditState,
} from '../../src/audit/index.js';
import { claimOfLatest } from '../../src/chain/attester.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { openStore, type PoolStore } from '../../src/ledger/index.js';
import { depositOp } from '../ledger/helpers/ops.js';
import { rawSql } from '../ledger/helpers/raw-sql.js';
import { writeRealPool } from './helpers/real-pool.js';

const ESCROW = { escrow: `0x${'ab'.repeat(20)}`, chainId: 31337 };

let core: PrivStarkCore;
let base: string;
const copies: string[] = [];

/** A copy of the real pool's store, open, with a raw SQL hand on it. */
async function copy() {
  const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-audit-inc-'));
  copies.push(dataDir);
  cpSync(base, dataDir, { recursive: true });
  const store = await openStore(core, { dataDir });
  return { store, sql: (text: string) => rawSql('sqlite', { dataDir }, text) };
}

/** The claim the attester would post now. */
async function claimNow(store: PoolStore): Promise<AttestedClaim> {
  const at = await claimOfLatest({
    store,
    extendLogDigests: () => extendLogDigests(store),
    chainId: 1,
  });
  return at!.claim;
}

/** Two more deposits and a checkpoint, its digest recorded. */
async function more(store: PoolStore): Promise<void> {
  await store.apply([depositOp({ amount: '7000' }), depositOp({ amount: '9000' })], Date.now());
  await store.checkpoint(Date.now(), 0);
  await extendLogDigests(store);
}

beforeAll(async () => {
  core = await loadCore();
  base = mkdtempSync(join(tmpdir(), 'priv-stark-audit-inc-base-'));
  await writeRealPool(core, base, [300_000n, 200_000n]);
}, 120_000);
afterAll(() => {
  for (const dir of [base, ...copies]) rmSync(dir, { recursive: true, force: true });
});

describe('an incremental audit resumes from the last complete one', () => {
  it('checks only what is new, and ends where a full audit ends', async () => {
    const { store } = await copy();
    try {
      const first = await claimNow(store);
      const before = await auditLog(core, store, [first]);
      expect(before.findings).toEqual([]);
      expect(before.resume?.seq).toBe(first.seq);
      await more(store);
      const second = await claimNow(store);
      // Through the state file's text, as the CLI keeps it.
      const resume = parseAuditState(serializeAuditState(before.resume!, ESCROW), core, ESCROW);
      const resumed = await auditLog(core, store, [first, second], { resume });
      const full = await auditLog(core, store, [first, second]);
      expect(resumed.findings).toEqual([]);
      expect(resumed.resumedAfter).toBe(first.seq);
      expect(resumed.proofsVerified).toBe(0);
      expect(full.proofsVerified).toBe(3);
      expect(resumed.checkedUpTo).toEqual(full.checkedUpTo);
      expect(resumed.checkedUpTo?.seq).toBe(second.seq);
      expect(resumed.tail).toEqual(full.tail);
      expect(resumed.resume?.fold).toEqual(full.resume?.fold);
      expect(resumed.resume?.frontier.root).toBe(second.root);
      expect([...resumed.facts.deposits.keys()].sort()).toEqual(
        [...full.facts.deposits.keys()].sort(),
      );
    } finally {
      await store.close();
    }
  });

  it('must-fail: a resumed audit finds an event rewritten past its state, and inflated totals', async () => {
    const { store, sql } = await copy();
    try {
      const first = await claimNow(store);
      const { resume } = await auditLog(core, store, [first]);
      await more(store);
      const second = await claimNow(store);
      const [deposited, withdrawn, paid, refunded] = second.totals;
      const inflated = { ...second, totals: [deposited + 5n, withdrawn, paid, refunded] as const };
      expect((await auditLog(core, store, [first, inflated], { resume })).counts).toEqual({
        totals_mismatch: 1,
      });
      await sql(`UPDATE events SET amount = '7001' WHERE position = ${resume!.fold.position + 1}`);
      const rewritten = await auditLog(core, store, [first, second], { resume });
      expect(rewritten.counts.log_rewritten).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('what it does not re-read — an event rewritten before its state — only a full audit finds', async () => {
    const { store, sql } = await copy();
    try {
      const first = await claimNow(store);
      const { resume } = await auditLog(core, store, [first]);
      await more(store);
      const second = await claimNow(store);
      const [deposit] = (await store.publishedEvents(0, 100)).filter((e) => e.kind === 'deposit');
      await sql(`UPDATE events SET amount = '299999' WHERE position = ${deposit!.id}`);
      // Both attestations since that event no longer match the log the full audit recomputes.
      expect((await auditLog(core, store, [first, second], { resume })).findings).toEqual([]);
      expect((await auditLog(core, store, [first, second])).counts.log_rewritten).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('must-fail: a state of another escrow, or of another shape, is refused', async () => {
    const { store } = await copy();
    try {
      const { resume } = await auditLog(core, store, [await claimNow(store)]);
      const text = serializeAuditState(resume!, ESCROW);
      const other = { ...ESCROW, escrow: `0x${'cd'.repeat(20)}` };
      expect(() => parseAuditState(text, core, other)).toThrow(
        expect.objectContaining({ code: 'audit_state_other_escrow' }),
      );
      const broken = [
        text.replace(/"digest":"0x[0-9a-f]{64}"/, '"digest":"0x12"'),
        text.replace(/"explainedBelow":\d+/, '"explainedBelow":1'),
        text.replace(/"frontier":"0x[0-9a-f]{8}/, '"frontier":"0xzzzzzzzz'),
        text.replace('"version":1', '"version":2'),
        text.slice(0, 40),
      ];
      for (const bad of broken) {
        expect(bad).not.toBe(text);
        expect(() => parseAuditState(bad, core, ESCROW)).toThrow(AuditStateError);
      }
    } finally {
      await store.close();
    }
  });
});

describe('split views: two readers compare their tails', () => {
  it('the same log agrees; a tail served otherwise to one reader is a split_view', async () => {
    const a = await copy();
    const b = await copy();
    try {
      const claim = await claimNow(a.store);
      await more(a.store);
      await more(b.store);
      const [, tailEvent] = (await b.store.publishedEvents(0, 100)).slice(-2);
      const ours = await auditLog(core, a.store, [claim]);
      const same = compareTails(ours.tail, ours.tail);
      expect(same.compared).toBeGreaterThanOrEqual(2);
      expect(same.findings).toEqual([]);
      const honest = await auditLog(core, b.store, [claim]);
      // Both copies got two deposits of random commitments: their tails already differ.
      expect(compareTails(ours.tail, honest.tail).findings.map((f) => f.code)).toEqual([
        'split_view',
      ]);
      // The attested part is the same for both.
      expect(ours.tail[0]).toEqual(honest.tail[0]);
      await b.sql(`UPDATE events SET amount = '1' WHERE position = ${tailEvent!.id}`);
      const served = await auditLog(core, b.store, [claim]);
      expect(served.findings).toEqual([]);
      expect(compareTails(honest.tail, served.tail).findings).toHaveLength(1);
    } finally {
      await a.store.close();
      await b.store.close();
    }
  });
});

describe('an archive pruned before the audit', () => {
  /** The store's pages as a node serves them once proofs through `through` were pruned. */
  const pruned = (store: PoolStore, through: number): AuditLogSource => ({
    publishedEvents: (a, l) => store.publishedEvents(a, l),
    leaves: (f, l) => store.leaves(f, l),
    checkpoints: (a, l) => store.checkpoints(a, l),
    logDigests: (a, l) => store.logDigests(a, l),
    archiveState: async () => ({ ...(await store.archiveState()), prunedThrough: through }),
    archivedProofs: async (a, l) => {
      if (a < through) throw new Error(`page at ${a} was pruned (410)`);
      return store.archivedProofs(a, l);
    },
  });

  it('with no state: checked from the first attestation past the pruning, never complete', async () => {
    const { store } = await copy();
    try {
      const claim = await claimNow(store);
      const result = await auditLog(core, pruned(store, 4), [claim]);
      expect(result.findings).toEqual([]);
      expect(result.incomplete).toMatch(/pruned through position 4/);
      expect(result.checkedUpTo).toBeNull();
      expect(result.resume).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('with a state kept from before the pruning: complete', async () => {
    const { store } = await copy();
    try {
      const first = await claimNow(store);
      const { resume } = await auditLog(core, store, [first]);
      await more(store);
      const second = await claimNow(store);
      const result = await auditLog(core, pruned(store, resume!.fold.position), [first, second], {
        resume,
      });
      expect(result.incomplete).toBeNull();
      expect(result.findings).toEqual([]);
      expect(result.checkedUpTo?.seq).toBe(second.seq);
    } finally {
      await store.close();
    }
  });
});
