// The audit bench's log (docs/audit-bench.md): a pool's public log written through the real store
// (`PoolStore.apply`, its checkpoints, the node's digester, the attester's own claim), so every
// event is one the store accepts and the audit reads the pages a pool node serves. Commitments are
// the core's: deposits `H_NOTE(amount, pre)` of the escrow's deposits, recipient notes from
// (amount, recipient, nullifier) as the pool derives them, change and outputs notes of random
// owners; nullifiers are random (unique with overwhelming probability). Proofs are not real here:
// each proven event carries the store's stand-in proof (5 bytes), which the log-only pass hashes
// into the digest like any proof (bench/audit-proofs.ts measures real ones).

import type { Address } from 'viem';

import { extendLogDigests } from '../src/audit/index.js';
import type { AttestationClaim } from '../src/chain/attestation-sender.js';
import { claimOfLatest } from '../src/chain/attester.js';
import { type DigestHex, type PrivStarkCore, randomDigest } from '../src/core/index.js';
import { commitmentOf, precommitmentOf, recipientRhoOf } from '../src/core/witness.js';
import { type PoolStore, type StoreOp, settlementId } from '../src/ledger/index.js';
import { transitionId } from '../src/ledger/notes.js';
import { STAND_IN_PROOF } from '../testkit/stand-in-proof.js';

/** How many of each event the log holds. */
export interface LogPlan {
  readonly deposits: number;
  readonly settlements: number;
  readonly transitions: number;
  readonly exits: number;
  /** Checkpoints attested (the log is cut into this many rounds, each ending in one). */
  readonly attestations: number;
}

/** The log: 1,000,000 events and 200 attestations. */
export const FULL_PLAN: LogPlan = {
  deposits: 10_000,
  settlements: 960_000,
  transitions: 25_000,
  exits: 5_000,
  attestations: 200,
};

/** The full plan scaled down (each count at least 1; two attestations, so one is not the last). */
export function scaledPlan(scale: number): LogPlan {
  const of = (n: number, min = 1) => Math.max(min, Math.round(n * scale));
  return {
    deposits: of(FULL_PLAN.deposits),
    settlements: of(FULL_PLAN.settlements),
    transitions: of(FULL_PLAN.transitions),
    exits: of(FULL_PLAN.exits),
    attestations: of(FULL_PLAN.attestations, 2),
  };
}

/** Events a plan makes. */
export const eventsOf = (p: LogPlan) => p.deposits + p.settlements + p.transitions + p.exits;

/** A deposit the escrow holds (accepted), to shield. */
export interface ChainDeposit {
  readonly amount: bigint;
  readonly pre: DigestHex;
}

/** An exit the log holds, for the payout the chain must show. */
export interface LogExit {
  readonly withdrawalId: DigestHex;
  readonly to: Address;
  readonly amount: bigint;
}

/** What generating the log came to. */
export interface GeneratedLog {
  /** The attester's claim at the end of each round, in order. */
  readonly claims: AttestationClaim[];
  readonly exits: LogExit[];
  readonly events: number;
  readonly ms: number;
}

/** Settlement and exit amounts (atomic units): small, so the deposits cover every exit. */
const PAYMENT = 10_000n;
const EXIT = 1_000n;
/** Ops per `apply` (one SQLite transaction), about the group committer's size at load. */
const GROUP = 512;
/** Merchants paid (settlements' recipients), as shielded addresses. */
const MERCHANTS = 64;

/** A note commitment of `amount` to a random owner (the store and the audit see only this). */
const note = (core: PrivStarkCore, amount: bigint) =>
  commitmentOf(core, amount.toString(), randomDigest());

/** `count` spread over `rounds` rounds: the share of round `r`. */
const share = (count: number, rounds: number, r: number) =>
  Math.floor(((r + 1) * count) / rounds) - Math.floor((r * count) / rounds);

/** A settlement as the pool writes it: the recipient note derived from its nullifier. */
function settlement(core: PrivStarkCore, merchant: { owner: DigestHex; address: string }): StoreOp {
  const nullifier = randomDigest();
  const pre = precommitmentOf(core, merchant.owner, recipientRhoOf(core, nullifier));
  return {
    kind: 'settlement',
    nullifier,
    settlementId: settlementId(nullifier),
    change: note(core, PAYMENT),
    recipientNote: commitmentOf(core, PAYMENT.toString(), pre),
    recipient: merchant.address,
    amount: PAYMENT.toString(),
    proof: STAND_IN_PROOF,
  };
}

/** A merge or split (`to` null) or an exit to `to`. */
function transition(core: PrivStarkCore, to: Address | null, chainId: number): StoreOp {
  const nullifiers = [randomDigest(), randomDigest()] as const;
  return {
    kind: 'transition',
    transitionId: transitionId(nullifiers[0]),
    nullifiers,
    outputs: [note(core, PAYMENT), note(core, PAYMENT)],
    memo: [
      String(Math.floor(Math.random() * 2 ** 48)),
      String(Math.floor(Math.random() * 2 ** 48)),
    ],
    exit: to === null ? '0' : EXIT.toString(),
    destination: to === null ? null : `eip155:${chainId}:${to}`,
    refund: note(core, 0n),
    proof: STAND_IN_PROOF,
  };
}

/** Applies `ops` in groups; any refusal is a bug of the generator. */
async function applyAll(store: PoolStore, ops: readonly StoreOp[]): Promise<void> {
  for (let at = 0; at < ops.length; at += GROUP) {
    const results = await store.apply(ops.slice(at, at + GROUP), Date.now());
    const refused = results.find((r) => !r.ok);
    if (refused) throw new Error(`the store refused an op: ${JSON.stringify(refused)}`);
  }
}

/**
 * Writes `plan`'s log into `store` in `plan.attestations` rounds, each a proportional mix of the
 * kinds ending in a checkpoint, its digest and the attester's claim. Exits are recorded paid (the
 * payout sender's `paying`, then `paid`) in their round, so each claim's paid-out total counts them:
 * the caller pays them on chain before posting the claims.
 * @param deposits the escrow's accepted deposits, `plan.deposits` of them
 * @param destinations the accounts exits pay, in turn
 */
export async function generateLog(
  core: PrivStarkCore,
  store: PoolStore,
  plan: LogPlan,
  deposits: readonly ChainDeposit[],
  options: {
    readonly chainId: number;
    readonly destinations: readonly Address[];
    readonly onRound?: (round: number, events: number) => void;
  },
): Promise<GeneratedLog> {
  if (deposits.length !== plan.deposits) throw new Error('one chain deposit per planned deposit');
  const started = performance.now();
  const merchants = Array.from({ length: MERCHANTS }, () => {
    const owner = randomDigest();
    return { owner, address: core.encodeAddress(owner) };
  });
  const claims: AttestationClaim[] = [];
  const exits: LogExit[] = [];
  let events = 0;
  let [deposited, exited] = [0, 0];
  const rounds = plan.attestations;
  for (let r = 0; r < rounds; r++) {
    const ops: StoreOp[] = [];
    for (let i = share(plan.deposits, rounds, r); i > 0; i--) {
      const d = deposits[deposited++]!;
      const commitment = commitmentOf(core, d.amount.toString(), d.pre);
      ops.push({ kind: 'deposit', amount: d.amount.toString(), commitment });
    }
    // Payments and transitions interleave as they would arrive; the round's deposits come first
    // so that the pool never spends more than it holds, as a real one could not.
    const kinds = [
      ...Array<'s'>(share(plan.settlements, rounds, r)).fill('s'),
      ...Array<'t'>(share(plan.transitions, rounds, r)).fill('t'),
      ...Array<'x'>(share(plan.exits, rounds, r)).fill('x'),
    ].sort(() => Math.random() - 0.5);
    const paid: string[] = [];
    for (const kind of kinds) {
      if (kind === 's') ops.push(settlement(core, merchants[ops.length % MERCHANTS]!));
      else if (kind === 't') ops.push(transition(core, null, options.chainId));
      else {
        const to = options.destinations[exited++ % options.destinations.length]!;
        const op = transition(core, to, options.chainId) as Extract<
          StoreOp,
          { kind: 'transition' }
        >;
        ops.push(op);
        paid.push(op.transitionId);
        exits.push({ withdrawalId: op.transitionId as DigestHex, to, amount: EXIT });
      }
    }
    await applyAll(store, ops);
    for (const status of ['paying', 'paid'] as const)
      await applyAll(
        store,
        paid.map((withdrawalId) => ({ kind: 'payout', withdrawalId, status })),
      );
    events += ops.length;
    await store.checkpoint(Date.now(), 0);
    const at = await claimOfLatest({
      store,
      extendLogDigests: () => extendLogDigests(store),
      chainId: options.chainId,
    });
    if (at === null) throw new Error('no checkpoint after a round');
    claims.push(at.claim);
    options.onRound?.(r + 1, events);
  }
  return { claims, exits, events, ms: performance.now() - started };
}
