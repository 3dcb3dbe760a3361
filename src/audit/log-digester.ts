/**
 * @module The pool's log digests, extended checkpoint by checkpoint (docs/audit.md, "Log digest"):
 * from the newest recorded digest, the published events of each later checkpoint are folded in
 * position order, each with the hash of the proof the archive kept for it, and the digest after
 * each checkpoint is recorded — what an attestation will post, and what any reader recomputes from
 * the same public pages (`/events`, `/archive`) to compare. An event applied before the archive
 * existed (at or below its `legacyThrough`) folds in with no proof hash; a proof missing anywhere
 * else stops the digester rather than record a digest nobody could reproduce.
 */

import { hexToBytes } from '@noble/hashes/utils';

import type {
  ArchivedProof,
  ArchivedProofHash,
  ArchiveState,
  CheckpointCoverage,
  LogDigestRecord,
  PoolEvent,
} from '../ledger/index.js';
import {
  digestHex,
  GENESIS_LOG_DIGEST,
  NO_PROOF_HASH,
  nextLogDigest,
  proofHashOf,
} from './log-digest.js';

/** What the digester reads and writes: the pool store's (`PoolStore`) methods of these names. */
export interface DigestSource {
  checkpointCoverage(after: number, limit: number): Promise<CheckpointCoverage[]>;
  latestLogDigest(): Promise<LogDigestRecord | null>;
  publishedEvents(after: number, limit: number): Promise<PoolEvent[]>;
  archivedProofs(after: number, limit: number): Promise<ArchivedProof[]>;
  /**
   * The SHA-256 the store kept beside each archived proof, when it keeps one (the pool store): the
   * digester then reads the bytes only of proofs kept without it.
   */
  archivedProofHashes?(after: number, limit: number): Promise<ArchivedProofHash[]>;
  archiveState(): Promise<ArchiveState>;
  recordLogDigests(records: readonly LogDigestRecord[]): Promise<void>;
}

/** Why the digester stopped: a proof it needs is not in the archive. */
export class LogDigestGapError extends Error {
  readonly code = 'archive_gap';
  constructor(readonly position: number) {
    super(`the archive holds no proof for position ${position}, which needs one`);
    this.name = 'LogDigestGapError';
  }
}

/** Events and proofs read at a time: a page of the log, and about 8 MB of proofs. */
const EVENTS_PER_READ = 1000;
const PROOFS_PER_READ = 100;
/** Checkpoints digested per call, so one call stays short on a long backlog. */
const CHECKPOINTS_PER_CALL = 1000;

/** Kinds applied with a proof (the archive keeps one for each). */
const PROVEN = new Set<PoolEvent['kind']>(['settlement', 'transition', 'withdrawal']);

/**
 * Extends the recorded digests over the checkpoints published since the newest one.
 * @param hashProof SHA-256 of an archived proof's bytes, for proofs whose hash the source does not
 *   keep: {@link proofHashOf} (`@noble/hashes`, in browsers too) by default; the pool node passes
 *   Node's own, several times faster on 82 KB (`src/pool-node/log-digest-timer.ts`)
 * @returns the digests recorded by this call
 * @throws LogDigestGapError when a proof it needs is not archived (pruned before it was digested)
 */
export async function extendLogDigests(
  source: DigestSource,
  hashProof: (proof: Uint8Array) => Uint8Array = proofHashOf,
): Promise<LogDigestRecord[]> {
  const latest = await source.latestLogDigest();
  let digest = latest ? hexToBytes(latest.digest.slice(2)) : GENESIS_LOG_DIGEST;
  let position = latest?.events ?? 0;
  const coverage = await source.checkpointCoverage(latest?.seq ?? 0, CHECKPOINTS_PER_CALL);
  if (coverage.length === 0) return [];
  const { legacyThrough } = await source.archiveState();
  const records: LogDigestRecord[] = [];
  let next = 0;
  // Each checkpoint gets the digest after its last event (one that published nothing new, the
  // digest before it).
  const recordCovered = () => {
    while (next < coverage.length && coverage[next]!.events <= position)
      records.push({ ...coverage[next++]!, digest: digestHex(digest) });
  };
  recordCovered();
  const last = coverage.at(-1)!.events;
  while (position < last) {
    const count = Math.min(EVENTS_PER_READ, last - position);
    const events = await source.publishedEvents(position, count);
    if (events.length === 0) break;
    const hashes = await proofHashesOf(source, position, events.length, hashProof);
    for (const event of events) {
      if (event.id !== position + 1)
        throw new Error(`the public log skips from position ${position} to ${event.id}`);
      const hash = hashes.get(event.id);
      if (hash === undefined && PROVEN.has(event.kind) && event.id > legacyThrough)
        throw new LogDigestGapError(event.id);
      digest = nextLogDigest(digest, event, hash ?? NO_PROOF_HASH);
      position = event.id;
      recordCovered();
    }
  }
  await source.recordLogDigests(records);
  return records;
}

/**
 * The hashes of the archived proofs of positions `(after, after + count]`, by position: as the
 * store kept them where it keeps them, otherwise (another source, or proofs archived before the
 * store kept hashes) hashed here from their bytes.
 */
async function proofHashesOf(
  source: DigestSource,
  after: number,
  count: number,
  hashProof: (proof: Uint8Array) => Uint8Array,
): Promise<Map<number, Uint8Array>> {
  const out = new Map<number, Uint8Array>();
  for (let at = after; at < after + count; at += PROOFS_PER_READ) {
    const limit = Math.min(PROOFS_PER_READ, after + count - at);
    const kept = await source.archivedProofHashes?.(at, limit);
    if (kept?.every((p) => p.hash !== null)) {
      for (const p of kept) out.set(p.id, p.hash!);
      continue;
    }
    for (const p of await source.archivedProofs(at, limit)) out.set(p.id, hashProof(p.proof));
  }
  return out;
}
