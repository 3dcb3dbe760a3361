/**
 * @module The audit's room: what anyone recomputes from the public log to check the operator's
 * attestations (docs/audit.md). So far the log digest, its canonical event encoding, and the
 * digester that extends the pool's recorded digests checkpoint by checkpoint.
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
