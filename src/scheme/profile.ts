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
