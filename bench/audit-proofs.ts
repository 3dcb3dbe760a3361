// The audit bench's proof checks (docs/audit-bench.md): real spend proofs settled through the
// ledger (it verifies each, the store archives it), then the audit's own proof path — `auditLog`
// with proof checks, over the store's public reads — run pass after pass until `target` proofs
// were verified. Proving is ~0.1 s a proof on one core, so a few hundred distinct proofs are
// proved and audited again each pass: a verification does the same work whichever pass it is in
// (the verifier keeps nothing between calls), and the log-only pass over the same store is timed
// too, so what the proofs add is told apart from reading the log.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { extendLogDigests } from '../src/audit/index.js';
import { auditLog } from '../src/audit/log-audit.js';
import { claimOfLatest } from '../src/chain/attester.js';
import type { PrivStarkCore } from '../src/core/index.js';
import { Ledger, openStore } from '../src/ledger/index.js';
import { fixtures, fundPool } from '../testkit/fixtures.js';

/** What the proof passes measured. */
export interface ProofChecks {
  /** Distinct real proofs, and their mean size. */
  readonly distinctProofs: number;
  readonly proofBytes: number;
  readonly passes: number;
  readonly verified: number;
  /** Wall time of the passes with proof checks, and of as many log-only passes. */
  readonly withProofsMs: number;
  readonly logOnlyMs: number;
  /** Verified proofs per second of the passes with proof checks. */
  readonly proofsPerSecond: number;
  /** The same with the log-only passes' time taken out: the proofs' own rate. */
  readonly verifyOnlyPerSecond: number;
}

/**
 * Proves `distinct` payments, settles them into a fresh store, and audits it with proof checks
 * until `target` proofs were verified (every pass clean, or it throws).
 */
export async function measureProofChecks(
  core: PrivStarkCore,
  distinct: number,
  target: number,
  log: (text: string) => void,
): Promise<ProofChecks> {
  const fx = await fixtures(core, { seed: 'audit-bench', notes: distinct });
  const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-audit-proofs-'));
  const store = await openStore(core, { dataDir });
  try {
    const ledger = new Ledger({ core, store, checkpointIntervalMs: 600_000 });
    await fundPool(ledger, fx);
    for (const payment of fx.payments) {
      const result = await ledger.settle(payment);
      if (!result.ok) throw new Error(`a fixture payment was refused: ${JSON.stringify(result)}`);
    }
    await ledger.checkpoint();
    const at = await claimOfLatest({
      store,
      extendLogDigests: () => extendLogDigests(store),
      chainId: 1,
    });
    if (at === null) throw new Error('no checkpoint');
    const passes = Math.ceil(target / distinct);
    let [withProofsMs, logOnlyMs, verified] = [0, 0, 0];
    for (let pass = 0; pass < passes; pass++) {
      // Alternated, so a change of load falls on both alike.
      for (const verifyProofs of [true, false]) {
        const started = performance.now();
        const result = await auditLog(core, store, [at.claim], { verifyProofs });
        const ms = performance.now() - started;
        if (result.findings.length > 0 || result.incomplete !== null)
          throw new Error(`the proof store did not audit clean: ${JSON.stringify(result.counts)}`);
        if (verifyProofs) {
          withProofsMs += ms;
          verified += result.proofsVerified;
        } else logOnlyMs += ms;
      }
      if ((pass + 1) % 10 === 0) log(`proof pass ${pass + 1}/${passes}: ${verified} verified`);
    }
    const bytes = fx.payments.reduce((s, p) => s + p.proof.length, 0) / fx.payments.length;
    return {
      distinctProofs: fx.payments.length,
      proofBytes: Math.round(bytes),
      passes,
      verified,
      withProofsMs,
      logOnlyMs,
      proofsPerSecond: (verified / withProofsMs) * 1000,
      verifyOnlyPerSecond: (verified / Math.max(1, withProofsMs - logOnlyMs)) * 1000,
    };
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
