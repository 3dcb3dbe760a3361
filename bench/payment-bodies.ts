// What goes over the wire for one bench payment, built as the stock parts build it: the payment
// requirements a merchant's `x402ResourceServer` sends with `PrivStarkSchemeServer` (the route's
// `extra.resourceId`, the transports it takes, the flow), the payload the wallet makes (inline, or
// compact with the reference of the proof it handed over), the hand-over the wallet posts to
// the pool node (`POST /proofs`, a frame or JSON), the `/verify` and `/settle` body of the stock
// `HTTPFacilitatorClient`, and the `PAYMENT-SIGNATURE` header of the stock `x402Client` (base64 of
// the PaymentPayload JSON with the payload, the merchant's `resource` and the `accepted`
// requirements).

import type { PrivStarkCore } from '../src/core/index.js';
import { encodeProof, type ProofTransport } from '../src/scheme/index.js';
import { handOverFrame, handOverBody as handOverRequest } from '../testkit/bodies.js';
import type { PaymentFixture } from '../testkit/fixtures.js';

/** x402 payment requirements of a bench payment. */
export interface BenchRequirements {
  readonly scheme: string;
  readonly network: string;
  readonly asset: string;
  readonly amount: string;
  readonly payTo: string;
  readonly maxTimeoutSeconds: number;
  readonly extra: Record<string, unknown>;
}

/** The resource a merchant names in its 402 (the stock HTTP server: url, description, mimeType). */
export interface BenchResource {
  readonly url: string;
  readonly description: string;
  readonly mimeType: string;
}

/**
 * The requirements of `p`'s route.
 * @param options.maxTimeoutSeconds long enough for the fixtures' expiry
 * @param options.flow the merchant's payment flow (`extra.paymentFlow`, as the stock server writes
 *   it: `upfront` is this scheme's default); none for the bare requirements of the older benches
 * @param options.transports `extra.proofTransports` (none for the bare requirements)
 */
export function requirementsOf(
  p: PaymentFixture,
  options: {
    maxTimeoutSeconds: number;
    flow?: 'upfront' | 'authorization';
    transports?: readonly ProofTransport[];
  },
): BenchRequirements {
  return {
    scheme: p.payment.scheme,
    network: p.payment.network,
    asset: p.payment.asset,
    amount: p.payment.amount,
    payTo: p.payment.payTo,
    maxTimeoutSeconds: options.maxTimeoutSeconds,
    extra: {
      resourceId: p.payment.resourceId,
      ...(options.transports ? { proofTransports: options.transports } : {}),
      ...(options.flow ? { paymentFlow: options.flow } : {}),
    },
  };
}

/** The resource of `p`'s route, as a stock merchant names it. */
export function resourceOf(p: PaymentFixture): BenchResource {
  const path = p.payment.resourceId.replace(/^[A-Z]+ /, '');
  return { url: `http://127.0.0.1:3000${path}`, description: 'a fixture resource', mimeType: '' };
}

/** The wallet's payload with the proof inline (field order as the wallet writes it). */
export function inlinePayload(p: PaymentFixture): Record<string, unknown> {
  return {
    scheme: p.payment.scheme,
    network: p.payment.network,
    root: p.publicInputs.root,
    nullifier: p.publicInputs.nullifier,
    commitment: p.publicInputs.change,
    proof: encodeProof(p.proof),
    amount: p.publicInputs.amount,
    recipient: p.payment.payTo,
    expiry: p.payment.expiry,
  };
}

/** The wallet's compact payload: the inline one with the proof's reference instead of the proof. */
export function compactPayload(p: PaymentFixture, reference: string): Record<string, unknown> {
  const { proof: _inline, ...fields } = inlinePayload(p);
  return { ...fields, proofRef: reference };
}

/** The reference the pool node answers for `p`'s proof (the wallet computes it too). */
export function referenceOf(core: PrivStarkCore, p: PaymentFixture): string {
  return core.proofReference(p.proof, p.publicInputs).reference;
}

/** The JSON body of `POST /proofs` (the proof in base64), as bytes (testkit's builder). */
export function handOverBody(p: PaymentFixture): Buffer {
  return Buffer.from(JSON.stringify(handOverRequest(p)));
}

/** The hand-over frame the wallet posts to `POST /proofs` (testkit's builder). */
export function handOverFrameBody(p: PaymentFixture): Buffer {
  return Buffer.from(handOverFrame(p));
}

/** The x402 PaymentPayload the stock client builds (`resource` omitted: the older benches). */
export function paymentPayloadOf(
  payload: Record<string, unknown>,
  accepted: BenchRequirements,
  resource?: BenchResource,
): Record<string, unknown> {
  return resource
    ? { x402Version: 2, payload, resource, accepted }
    : { x402Version: 2, accepted, payload };
}

/** The `/verify` and `/settle` body of the stock facilitator client. */
export function facilitatorBody(
  paymentPayload: Record<string, unknown>,
  requirements: BenchRequirements,
): Buffer {
  return Buffer.from(
    JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements }),
  );
}

/** The `PAYMENT-SIGNATURE` header the merchant receives: base64 of the PaymentPayload JSON. */
export function paymentSignatureHeader(paymentPayload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(paymentPayload), 'utf8').toString('base64');
}
