/**
 * @module The audit's room: what anyone recomputes from the public log to check the operator's
 * attestations (docs/audit.md): the log digest, its canonical event encoding, the digester that
 * extends the pool's recorded digests checkpoint by checkpoint, and the log audit with its
 * finding codes.
 */

export {
  EVENT_ENCODING_VERSION,
  EVENT_KIND_TAGS,
  EventEncodingError,
  encodeEvent,
} from './event-encoding.js';
export {
  digestHex,
  GENESIS_LOG_DIGEST,
  logDigest,
  NO_PROOF_HASH,
  nextLogDigest,
  proofHashOf,
} from './log-digest.js';
export { type DigestSource, extendLogDigests, LogDigestGapError } from './log-digester.js';
export {
  EVIDENCE_PER_CODE,
  FINDING_CODES,
  type Finding,
  type FindingCode,
  Findings,
} from './findings.js';
export {
  type AttestedClaim,
  type AuditCore,
  type AuditLogSource,
  type AuditResume,
  auditLog,
  type CheckpointDigest,
  type LogAuditResult,
  type LogFacts,
} from './log-audit.js';
export {
  AUDIT_STATE_VERSION,
  AuditStateError,
  parseAuditState,
  serializeAuditState,
} from './audit-state.js';
export { compareTails, type TailComparison, tailOf } from './split-view.js';
