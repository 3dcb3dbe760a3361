/**
 * @module This implementation's **draft profile** of `priv-stark/v1` (priv-stark-v1.md §3–6): the
 * scheme name, the networks with their one asset, and the fixed limits. The interface document
 * leaves these "not shown"; they are decided here, in one place, so that an official schema can
 * replace them. Nothing outside `src/scheme/` spells these values (`test/architecture.test.ts`
 * holds that).
 */

/** The one payment scheme. */
export const SCHEME = 'priv-stark/v1';

/** The x402 protocol version of the envelope (`{ x402Version: 2, paymentPayload, paymentRequirements }`). */
export const X402_VERSION = 2;

/** A network (one privacy pool) and its single asset. */
export interface NetworkProfile {
  /** CAIP-2 style `shielded:<pool id>`. */
  readonly network: string;
  /** The pool's one asset. */
  readonly asset: string;
  /** Decimals of the asset (atomic units per whole unit = 10^decimals). */
  readonly decimals: number;
  /** What backs a chain pool (`chain-network.ts`); absent for the devnet pool. */
  readonly chain?: ChainBacking;
}

/** What backs a chain pool: the chain, its escrow and the escrow's one token (EIP-55 addresses). */
export interface ChainBacking {
  /** EIP-155 chain id. */
  readonly chainId: number;
  readonly escrow: string;
  readonly token: string;
}

/** The embedded devnet pool: `dUSD`, 6 decimals. */
export const DEVNET_NETWORK: NetworkProfile = {
  network: 'shielded:devnet',
  asset: 'dUSD',
  decimals: 6,
};

/** Networks this profile knows, by default just the devnet pool. */
export const NETWORKS: readonly NetworkProfile[] = [DEVNET_NETWORK];

/** A proof over this many decoded bytes is refused with `payload_too_large`. */
export const MAX_PROOF_BYTES = 128 * 1024;

/** Base64 characters of a proof of {@link MAX_PROOF_BYTES} (longer strings are refused unread). */
export const MAX_PROOF_BASE64_CHARS = 4 * Math.ceil(MAX_PROOF_BYTES / 3);

/** The facilitator's request body limit. */
export const BODY_LIMIT_BYTES = 512 * 1024;

/** Expiries are rounded up to a multiple of this (no clock fingerprint). */
export const EXPIRY_GRANULARITY_SECONDS = 60;

/** Slack above `maxTimeoutSeconds` an expiry may have (room for the rounding up). */
export const EXPIRY_SLACK_SECONDS = 60;

/** Maximum UTF-8 lengths of the context fields (longer values are refused by the core too). */
export const CONTEXT_FIELD_MAX_BYTES = {
  scheme: 32,
  network: 64,
  asset: 64,
  payTo: 128,
  resourceId: 256,
} as const;

/** Amounts are decimal strings of atomic units with `0 < amount < 2^62`. */
export const MAX_AMOUNT_EXCLUSIVE = 1n << 62n;

/**
 * How a payment carries its proof (compact payments, docs/compact-payments.md): `inline` in the
 * payload (`proof`), or by `reference` to a proof handed over to the pool operator's node before
 * paying (`proofRef`). Requirements list what the merchant's facilitator takes in
 * `extra.proofTransports`, in the merchant's order of preference.
 */
export const PROOF_TRANSPORTS = ['reference', 'inline'] as const;

/** A proof transport. */
export type ProofTransport = (typeof PROOF_TRANSPORTS)[number];

/**
 * The `PAYMENT-SIGNATURE` header of a compact payment stays within this many bytes, everything the
 * stock client copies into it included: below every cap of stock servers and proxies (nginx 8 KB
 * per line, AWS API Gateway 10 KB for all headers, Node 16 KiB).
 */
export const COMPACT_HEADER_MAX_BYTES = 4096;

/** Longest description a scheme server puts in a compact route's requirements, in UTF-8 bytes. */
export const ROUTE_DESCRIPTION_MAX_BYTES = 256;

/** A handed-over proof is kept until `min(expiry, hand-over + this)` plus the grace below. */
export const HANDOVER_RETENTION_CAP_SECONDS = 3600;

/** Kept this long past its payment's expiry (or the cap): room for the pool's clock. */
export const HANDOVER_GRACE_SECONDS = 60;

/** Live handed-over proofs one nullifier may have at once (a payment and one retry). */
export const MAX_LIVE_PROOFS_PER_NULLIFIER = 2;

/**
 * Room for a hand-over's fields but the proof, in UTF-8 bytes of JSON: every field at its schema's
 * longest with every character escaped (`\u0001` is 6 bytes) comes to about 5.4 KB.
 */
export const HANDOVER_FIELDS_MAX_BYTES = 8192;

/** The hand-over route's body limit: a proof of {@link MAX_PROOF_BYTES} in base64 and its fields. */
export const HANDOVER_BODY_LIMIT_BYTES = MAX_PROOF_BASE64_CHARS + HANDOVER_FIELDS_MAX_BYTES;

/**
 * The `resourceId` a transfer through the pool node is bound to (`POST /transfers`): a payment
 * statement whose context names no merchant's route, so a transfer proof pays nothing else and a
 * merchant's proof is not a transfer (docs/client.md, "Ready notes").
 */
export const TRANSFER_RESOURCE_ID = 'priv-stark:pool-transfer';

/** A transfer's expiry may be at most this far ahead of the pool's clock (plus the slack). */
export const TRANSFER_MAX_TIMEOUT_SECONDS = 120;

/**
 * The `resourceId` of a transition's context (merge or split, `POST /transitions`): its context
 * digest packs this scheme, the pool's network and asset, an empty `payTo`, amount `"1"` (the
 * encoding takes positive amounts only), this id and the expiry (`transitionContext`), so a
 * transition proof is bound to one pool and one time window and names no owner.
 */
export const TRANSITION_RESOURCE_ID = 'priv-stark:pool-transition';

/** The `resourceId` of an exit's context (a transition paying value out of the pool). */
export const EXIT_RESOURCE_ID = 'priv-stark:pool-exit';
