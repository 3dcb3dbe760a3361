/**
 * @module A store whose every call is a span (`store.nullifier`, `store.apply`, …) under the
 * request that made it: the service wraps its store in it when traces are on. A span carries the
 * store's kind, a group's size for `apply`, and `pool_unavailable` when the store failed — never
 * an argument or a result (nullifiers, roots, references and cursors stay out). The public log's
 * reads (`publishedState`, `publishedEvents`) are spans of their kind: `store.state`,
 * `store.events`.
 */

import { inSpan, type SpanFacts, type SpanOptions } from '../tracing/spans.js';
import { PoolUnavailableError } from './errors.js';
import type { PoolStore } from './store.js';

const reasonOfError = (error: unknown) =>
  error instanceof PoolUnavailableError ? 'pool_unavailable' : null;

/**
 * `store` with a span per call (nothing else changes; closing it closes `store`).
 * @example
 * const ledger = new Ledger({ core, store: tracedStore(store) });
 */
export function tracedStore(store: PoolStore): PoolStore {
  const facts: SpanFacts = { 'priv_stark.store': store.kind };
  const options: SpanOptions<unknown> = { facts, reasonOfError, leaf: true };
  const call = <T>(method: keyof PoolStore, work: () => Promise<T>, more?: SpanFacts) =>
    inSpan(`store.${method}`, work, more ? { ...options, facts: { ...facts, ...more } } : options);
  return {
    kind: store.kind,
    get schemaVersion() {
      return store.schemaVersion;
    },
    apply: (ops, now) =>
      call('apply', () => store.apply(ops, now), { 'priv_stark.ops': ops.length }),
    checkpoint: (now, minGapMs, epochMs) =>
      call('checkpoint', () => store.checkpoint(now, minGapMs, epochMs)),
    state: () => call('state', () => store.state()),
    frontier: () => call('frontier', () => store.frontier()),
    checkpointByRoot: (root) => call('checkpointByRoot', () => store.checkpointByRoot(root)),
    checkpoints: (after, limit) => call('checkpoints', () => store.checkpoints(after, limit)),
    leaves: (from, limit) => call('leaves', () => store.leaves(from, limit)),
    events: (after, limit) => call('events', () => store.events(after, limit)),
    // The public log's reads are spans of the state and the events read.
    publishedState: () => call('state', () => store.publishedState()),
    publishedEvents: (after, limit) => call('events', () => store.publishedEvents(after, limit)),
    withdrawals: (after, limit) => call('withdrawals', () => store.withdrawals(after, limit)),
    nullifier: (nullifier) => call('nullifier', () => store.nullifier(nullifier)),
    handedOver: (reference) => call('handedOver', () => store.handedOver(reference)),
    pruneProofs: (now) => call('pruneProofs', () => store.pruneProofs(now)),
    proofCount: () => call('proofCount', () => store.proofCount()),
    archivedProofs: (after, limit) =>
      call('archivedProofs', () => store.archivedProofs(after, limit)),
    archivedProofHashes: (after, limit) =>
      call('archivedProofHashes', () => store.archivedProofHashes(after, limit)),
    pruneArchive: (before, pageSize) =>
      call('pruneArchive', () => store.pruneArchive(before, pageSize)),
    archiveState: () => call('archiveState', () => store.archiveState()),
    checkpointCoverage: (after, limit) =>
      call('checkpointCoverage', () => store.checkpointCoverage(after, limit)),
    logDigests: (after, limit) => call('logDigests', () => store.logDigests(after, limit)),
    latestLogDigest: () => call('latestLogDigest', () => store.latestLogDigest()),
    recordLogDigests: (records) => call('recordLogDigests', () => store.recordLogDigests(records)),
    ping: () => call('ping', () => store.ping()),
    // A counter read, not a store call: no span.
    ...(store.commitTiming ? { commitTiming: () => store.commitTiming!() } : {}),
    close: () => store.close(),
  };
}
