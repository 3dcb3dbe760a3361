/**
 * @module JSON Schemas (TypeBox) of this profile's wire shapes: the request body both POSTs take
 * (`{ x402Version: 2, paymentPayload, paymentRequirements }`, as the official
 * `HTTPFacilitatorClient` sends it), the `priv-stark/v1` payload, and the x402 verify and settle
 * replies. The schemas fix shapes and bounds; canonical encodings (base64, field elements,
 * amounts, addresses) are checked by `encoding.ts`. Unknown fields inside `payload` are refused;
 * the envelope, `accepted`, `resource` and `extra` may carry whatever x402 adds.
 */

import { type Static, Type } from 'typebox';

import { SCHEME, X402_VERSION } from './profile.js';

const DIGEST_PATTERN = '^0x[0-9a-f]{64}$';
const PROOF_REFERENCE_PATTERN = '^0x[0-9a-f]{64}$';
const EXAMPLE_DIGEST = '0x5c1e8f0a3b2d4c6e7f9081a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6';

/** A digest: `0x` + 64 lowercase hex digits (4 × u64 little-endian, each canonical). */
export const DigestSchema = Type.String({
  pattern: DIGEST_PATTERN,
  description: 'digest, 0x + 64 lowercase hex',
  examples: [EXAMPLE_DIGEST],
});

const text = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, description });

/** x402 `PaymentRequirements` (what the resource server asks for). */
export const PaymentRequirementsSchema = Type.Object(
  {
    scheme: text(64, `payment scheme, "${SCHEME}"`),
    network: text(128, 'CAIP-2 style network, e.g. "shielded:devnet"'),
    asset: text(128, 'the network\'s one asset, e.g. "dUSD"'),
    amount: text(32, 'atomic units, decimal string, 0 < amount < 2^62'),
    payTo: text(256, "the recipient's shielded address (pstark1…)"),
    maxTimeoutSeconds: Type.Integer({
      minimum: 1,
      maximum: 2 ** 31 - 1,
      description: 'seconds the payment may stay valid',
    }),
    extra: Type.Optional(
      Type.Object(
        {
          resourceId: Type.Optional(
            Type.String({
              maxLength: 256,
              description: 'route the payment is for; bound into the proof',
            }),
          ),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
);

/** The `priv-stark/v1` payload (`paymentPayload.payload`), priv-stark-v1.md §3. */
export const PrivStarkPayloadSchema = Type.Object(
  {
    scheme: text(64, `"${SCHEME}"`),
    network: text(128, "equal to the requirements' network"),
    root: { ...DigestSchema, description: 'the checkpoint the proof is anchored to' },
    nullifier: { ...DigestSchema, description: "the spent note's nullifier" },
    commitment: { ...DigestSchema, description: "the change note's commitment" },
    // No length bounds here: the body limit bounds it, and the encoding step refuses a proof over
    // 128 KiB with payload_too_large (a schema bound would say invalid_payload, and would make
    // ajv count the characters of every proof).
    // Exactly one of `proof` and `proofRef` (the checks refuse both or neither: invalid_payload).
    proof: Type.Optional(
      Type.String({
        description:
          'inline: canonical standard base64 of the proof bytes, at most 128 KiB decoded',
      }),
    ),
    proofRef: Type.Optional(
      Type.String({
        pattern: PROOF_REFERENCE_PATTERN,
        description: 'compact: the reference of a proof handed over to the pool node, 0x + 64 hex',
        examples: [EXAMPLE_DIGEST],
      }),
    ),
    amount: text(32, "atomic units, equal to the requirements' amount"),
    recipient: text(256, "shielded address, equal to the requirements' payTo"),
    expiry: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'unix seconds, a multiple of 60, now < expiry ≤ now + maxTimeoutSeconds + 60',
    }),
  },
  { additionalProperties: false },
);

/** x402 `PaymentPayload` carrying a `priv-stark/v1` payload. */
export const PaymentPayloadSchema = Type.Object(
  {
    x402Version: Type.Literal(X402_VERSION),
    accepted: PaymentRequirementsSchema,
    payload: PrivStarkPayloadSchema,
    resource: Type.Optional(Type.Object({}, { additionalProperties: true })),
    extensions: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

/** The body of `POST /verify` and `POST /settle`. */
export const FacilitatorRequestSchema = Type.Object(
  {
    x402Version: Type.Literal(X402_VERSION),
    paymentPayload: PaymentPayloadSchema,
    paymentRequirements: PaymentRequirementsSchema,
  },
  { additionalProperties: true, description: 'x402 v2 verify/settle request' },
);

/** x402 `VerifyResponse` as this facilitator sends it (`payer` is never sent). */
export const VerifyResponseSchema = Type.Object(
  {
    isValid: Type.Boolean(),
    invalidReason: Type.Optional(Type.String({ description: 'a reason code of the registry' })),
    invalidMessage: Type.Optional(Type.String({ description: 'its generic message' })),
  },
  {
    additionalProperties: false,
    description: 'x402 verify response',
    examples: [{ isValid: true }],
  },
);

/** x402 `SettleResponse` as this facilitator sends it: `transaction` always, `payer` never. */
export const SettleResponseSchema = Type.Object(
  {
    success: Type.Boolean(),
    errorReason: Type.Optional(Type.String({ description: 'a reason code of the registry' })),
    errorMessage: Type.Optional(Type.String({ description: 'its generic message' })),
    transaction: Type.String({ description: 'settlement id; "" when nothing was settled' }),
    network: Type.String(),
  },
  {
    additionalProperties: false,
    description: 'x402 settle response',
    examples: [{ success: true, transaction: EXAMPLE_DIGEST, network: 'shielded:devnet' }],
  },
);

/** x402 `PaymentRequirements`. */
export type PaymentRequirements = Static<typeof PaymentRequirementsSchema>;
/** The `priv-stark/v1` payload. */
export type PrivStarkPayload = Static<typeof PrivStarkPayloadSchema>;
/** x402 `PaymentPayload` with a `priv-stark/v1` payload. */
export type PaymentPayload = Static<typeof PaymentPayloadSchema>;
/** The body of `/verify` and `/settle`, after schema validation. */
export type FacilitatorRequest = Static<typeof FacilitatorRequestSchema>;
/** The verify reply. */
export type VerifyResponse = Static<typeof VerifyResponseSchema>;
/** The settle reply. */
export type SettleResponse = Static<typeof SettleResponseSchema>;
