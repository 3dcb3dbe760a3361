/**
 * @module The audit's room: what anyone recomputes from the public log to check the operator's
 * attestations (docs/audit.md). So far the log digest and its canonical event encoding.
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
