/**
 * A child process of the race and crash tests: opens the ledger named in its argument (with
 * `openOn`, only once that line arrives on stdin: started ahead of its turn, it loads while
 * another worker runs), waits for `go` on stdin, then either settles a list of fixture payments all at once (`race`; by the
 * reference of an earlier hand-over when `references` names one), keeps applying deposits and
 * settlements until it is killed (`crash`), or keeps handing the payments' proofs over until it is
 * killed (`handover`). Every acknowledged write is printed on stdout (a pipe: synchronous on Linux)
 * only after its commit resolved.
 *
 *   node --import tsx testkit/ledger-worker.ts '{"mode":"race","config":{…},"spec":{…},"payments":[0,3,…]}'
 */

import { createInterface } from 'node:readline';

import { loadCore, type ProofReference, randomDigest } from '../src/core/index.js';
import { openStore, Ledger, type StoreConfig } from '../src/ledger/index.js';
import { transitionId as transitionIdOf } from '../src/ledger/notes.js';
import { type FixtureSpec, readFixtures } from './fixtures.js';
import { STAND_IN_PROOF } from './stand-in-proof.js';

interface Args {
  mode: 'race' | 'crash' | 'handover' | 'crash-transitions';
  config: StoreConfig;
  spec: FixtureSpec;
  /** Indexes into the fixtures' payments. */
  payments: number[];
  /** `race`: payment index → the reference it was handed over under (settled compact). */
  references?: Record<number, string>;
  /** A line to wait for on stdin before opening the ledger (default: open at once). */
  openOn?: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);

const core = await loadCore();
// The transitions mode writes straight to the store and needs no proven fixtures.
const cached = args.mode === 'crash-transitions' ? { payments: [] } : readFixtures(core, args.spec);
if (!cached) throw new Error('worker: fixtures are not cached');
const fixtures = cached as NonNullable<ReturnType<typeof readFixtures>>;
const stdin = createInterface({ input: process.stdin });
const received: string[] = [];
let arrived: (() => void) | undefined;
stdin.on('line', (line) => {
  received.push(line.trim());
  arrived?.();
});
/** Resolves once `word` has arrived on stdin (a line of its own). */
async function lineOf(word: string): Promise<void> {
  while (!received.includes(word)) await new Promise<void>((resolve) => (arrived = resolve));
}
if (args.openOn !== undefined) await lineOf(args.openOn);
const store = await openStore(core, args.config);
const pool = new Ledger({ core, store });
print({ ready: true });
await lineOf('go');
stdin.close();

if (args.mode === 'race') {
  const settle = (i: number) => {
    const payment = fixtures.payments[i]!;
    const reference = args.references?.[i] as ProofReference | undefined;
    return pool.settle(reference ? { ...payment, proof: undefined, reference } : payment);
  };
  const results = await Promise.all(args.payments.map(settle));
  print({
    results: results.map((r, k) => ({
      payment: args.payments[k],
      ok: r.ok,
      reason: r.ok ? null : r.reason,
      settlementId: r.settlementId ?? null,
    })),
  });
  await store.close();
  process.exit(0);
} else if (args.mode === 'crash-transitions') {
  // Transitions, exits and payout steps straight to the store (its atomicity is what a kill tests;
  // the proofs are the ledger's concern, tested elsewhere): each acknowledged once applied.
  const withdrawals: string[] = [];
  const lane = async () => {
    for (;;) {
      const roll = Math.random();
      if (roll < 0.25 && withdrawals.length > 0) {
        const id = withdrawals.shift()!;
        const [paying] = await store.apply(
          [{ kind: 'payout', withdrawalId: id, status: 'paying' }],
          Date.now(),
        );
        if (paying?.ok) print({ ack: 'payout', withdrawalId: id, status: 'paying' });
        const final = Math.random() < 0.5 ? 'paid' : 'failed';
        const [done] = await store.apply(
          [{ kind: 'payout', withdrawalId: id, status: final }],
          Date.now(),
        );
        if (done?.ok) print({ ack: 'payout', withdrawalId: id, status: final });
      } else {
        const exit = roll < 0.6 ? String(1000 + Math.floor(Math.random() * 1000)) : '0';
        const nullifiers = [randomDigest(), randomDigest()] as const;
        const transitionId = transitionIdOf(nullifiers[0]);
        const [result] = await store.apply(
          [
            {
              kind: 'transition',
              transitionId,
              nullifiers,
              outputs: [randomDigest(), randomDigest()],
              memo: ['1', '2'],
              exit,
              destination:
                exit === '0' ? null : 'eip155:8453:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
              refund: randomDigest(),
              proof: STAND_IN_PROOF,
            },
          ],
          Date.now(),
        );
        if (result?.ok) {
          print({ ack: 'transition', transitionId, nullifier: nullifiers[0], exit });
          if (exit !== '0') withdrawals.push(transitionId);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
} else if (args.mode === 'handover') {
  let next = 0;
  const lane = async () => {
    while (next < args.payments.length) {
      const i = args.payments[next++]!;
      const p = fixtures.payments[i]!;
      const result = await pool.handOver({
        proof: p.proof,
        publicInputs: p.publicInputs,
        payment: p.payment,
      });
      if (result.ok) print({ ack: 'handover', payment: i, reference: result.reference });
    }
    // every payment handed over: wait to be killed
    await new Promise(() => undefined);
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
} else {
  let next = 0;
  const lane = async () => {
    for (;;) {
      if (Math.random() < 0.5 && next < args.payments.length) {
        const i = args.payments[next++]!;
        const result = await pool.settle(fixtures.payments[i]!);
        if (result.ok)
          print({
            ack: 'settlement',
            nullifier: result.nullifier,
            settlementId: result.settlementId,
            eventId: result.eventId,
          });
      } else {
        const pre = randomDigest();
        const result = await pool.deposit({ amount: '7', pre });
        if (result.ok)
          print({ ack: 'deposit', index: result.index, commitment: result.commitment });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
}
