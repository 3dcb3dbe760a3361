/**
 * @module The `priv-stark/v1` profile of this implementation (a draft, replaceable when an
 * official schema is published): constants and limits, the reason registry, the wire schemas,
 * canonical encodings and the mapping from a request to the proof's statement.
 */

export {
  checkDestination,
  type DestinationCheck,
  isEip55,
  MAX_DESTINATION_CHARS,
} from './caip10.js';
export {
  type ChainNetworkProfile,
  chainAssetId,
  chainNetworkId,
  chainNetworkProfile,
} from './chain-network.js';
export {
  exitContext,
  paymentContext,
  publicInputs,
  resourceIdOf,
  transitionContext,
} from './context.js';
export { CONTEXT_DIGESTS_MAX, ContextDigests } from './context-digests.js';
export {
  ANCHOR_AGE_SLACK_MS,
  anchorBoundary,
  boundaryAtOrBefore,
  checkEpochGrid,
  chooseAnchor,
  coversEpoch,
  DEFAULT_EPOCH_GRID,
  type EpochGrid,
  type GridCheckpoint,
  isOnGrid,
  maxAnchorAgeMs,
  NO_EPOCH_GRID,
} from './epoch-grid.js';
export {
  type CheckedPayment,
  type CheckOptions,
  type ClaimedInputs,
  isCanonicalDigest,
  type PaymentClaim,
  PaymentRules,
  type PoolIdentity,
  type RuleFailure,
  type RuleReason,
  type RulesCore,
  type RuleStep,
} from './payment-rules.js';
export {
  decodeProof,
  encodeProof,
  expiryFor,
  expiryStatus,
  hasExpired,
  isAmount,
  isExpiryGranular,
  isProofReference,
  parseAmount,
  type ProofDecoding,
} from './encoding.js';
export {
  decodeHandOverFrame,
  encodeHandOverFrame,
  HANDOVER_FRAME_HEADER_MAX_BYTES,
  HANDOVER_FRAME_LIMIT_BYTES,
  HANDOVER_FRAME_MEDIA_TYPE,
  type HandOverFrameDecoding,
  isHandOverFrame,
} from './handover-frame.js';
export {
  BODY_LIMIT_BYTES,
  type ChainBacking,
  COMPACT_HEADER_MAX_BYTES,
  CONTEXT_FIELD_MAX_BYTES,
  DEVNET_NETWORK,
  EXPIRY_GRANULARITY_SECONDS,
  EXPIRY_SLACK_SECONDS,
  HANDOVER_BODY_LIMIT_BYTES,
  HANDOVER_GRACE_SECONDS,
  HANDOVER_RETENTION_CAP_SECONDS,
  MAX_AMOUNT_EXCLUSIVE,
  MAX_LIVE_PROOFS_PER_NULLIFIER,
  MAX_PROOF_BASE64_CHARS,
  MAX_PROOF_BYTES,
  type NetworkProfile,
  NETWORKS,
  PROOF_TRANSPORTS,
  type ProofTransport,
  ROUTE_DESCRIPTION_MAX_BYTES,
  SCHEME,
  TRANSFER_MAX_TIMEOUT_SECONDS,
  TRANSFER_RESOURCE_ID,
  TRANSITION_RESOURCE_ID,
  EXIT_RESOURCE_ID,
  X402_VERSION,
} from './profile.js';
export {
  POOL_NODE_REASONS,
  type PoolNodeReason,
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
