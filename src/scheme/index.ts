/**
 * @module The `priv-stark/v1` profile of this implementation (a draft, replaceable when an
 * official schema is published): constants and limits, the reason registry, the wire schemas,
 * canonical encodings and the mapping from a request to the proof's statement.
 */

export { paymentContext, publicInputs, resourceIdOf } from './context.js';
export {
  decodeProof,
  encodeProof,
  expiryFor,
  expiryStatus,
  isAmount,
  isExpiryGranular,
  parseAmount,
  type ProofDecoding,
} from './encoding.js';
export {
  BODY_LIMIT_BYTES,
  CONTEXT_FIELD_MAX_BYTES,
  DEVNET_NETWORK,
  EXPIRY_GRANULARITY_SECONDS,
  EXPIRY_SLACK_SECONDS,
  MAX_AMOUNT_EXCLUSIVE,
  MAX_PROOF_BASE64_CHARS,
  MAX_PROOF_BYTES,
  type NetworkProfile,
  NETWORKS,
  SCHEME,
  X402_VERSION,
} from './profile.js';
export {
  DEPOSIT_REASONS,
  type DepositReason,
  isReason,
  messageOf,
  type Reason,
  REASON_CODES,
  type ReasonEntry,
  REASONS,
  statusOf,
} from './reasons.js';
export {
  DigestSchema,
  type FacilitatorRequest,
  FacilitatorRequestSchema,
  type PaymentPayload,
  PaymentPayloadSchema,
  type PaymentRequirements,
  PaymentRequirementsSchema,
  type PrivStarkPayload,
  PrivStarkPayloadSchema,
  type SettleResponse,
  SettleResponseSchema,
  type VerifyResponse,
  VerifyResponseSchema,
} from './schema.js';
