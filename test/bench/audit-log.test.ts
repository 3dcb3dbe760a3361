// The audit bench's generator (bench/audit-log.ts) at a tiny scale: a few hundred events written
// through the real store audit clean against the claims its rounds made (every leaf explained,
// every recipient note recomputed, each claim's digest, root and totals), and its must-fail twin —
// one settlement's nullifier rewritten to another's after the claims — is found as
// `nullifier_reused`. Store reads, no chain and no timing: the bench itself measures.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { eventsOf, generateLog, type GeneratedLog, scaledPlan } from '../../bench/audit-log.js';
import { auditLog } from '../../src/audit/log-audit.js';
import { loadCore, type PrivStarkCore, randomDigest } from '../../src/core/index.js';
import { openStore, type PoolStore } from '../../src/ledger/index.js';
import { rawSql } from '../ledger/helpers/raw-sql.js';

const plan = scaledPlan(1 / 2500);
let core: PrivStarkCore;
let dataDir: string;
let store: PoolStore;
let generated: GeneratedLog;

beforeAll(async () => {
  core = await loadCore();
  dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-audit-bench-smoke-'));
  store = await openStore(core, { dataDir });
  const deposits = Array.from({ length: plan.deposits }, () => ({
    amount: 1_000_000n,
    pre: randomDigest(),
  }));
  generated = await generateLog(core, store, plan, deposits, {
    chainId: 31337,
    destinations: ['0x000000000000000000000000000000000000dEaD'],
  });
});
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the audit bench's log", () => {
  it('is the planned mix, one claim per round, and audits clean up to the last claim', async () => {
    expect(generated.events).toBe(eventsOf(plan));
    expect(generated.events).toBeGreaterThan(300);
    expect(generated.claims).toHaveLength(plan.attestations);
    expect(generated.exits).toHaveLength(plan.exits);
    const result = await auditLog(core, store, generated.claims, { verifyProofs: false });
    expect(result.counts).toEqual({});
    expect(result.incomplete).toBeNull();
    expect(result.checkedUpTo).toEqual({
      seq: generated.claims.at(-1)!.seq,
      eventId: generated.events,
    });
    // Deposited and withdrawn as the plan makes them (the chain's half holds these to the escrow).
    expect(result.facts.deposits.size).toBe(plan.deposits);
    expect(result.facts.withdrawals.size).toBe(plan.exits);
  });

  it('must-fail twin: one nullifier spent twice is found', async () => {
    const settlements = (await store.publishedEvents(0, 1000)).filter(
      (e) => e.kind === 'settlement',
    );
    const [first, second] = settlements;
    if (first?.kind !== 'settlement' || second?.kind !== 'settlement') throw new Error('no events');
    await rawSql(
      'sqlite',
      { dataDir },
      `UPDATE events SET nullifier = '${first.nullifier}' WHERE position = ${second.id}`,
    );
    const result = await auditLog(core, store, generated.claims, { verifyProofs: false });
    expect(result.counts.nullifier_reused).toBe(1);
  });
});
