/**
 * @module One hand-over as the request bodies a wallet may send (`POST /proofs`, or a merchant's
 * relay): the frame (`scheme/handover-frame.ts`) when the proof is given as bytes and its fields fit
 * a frame's header, and the JSON body, built only when asked for — what a node or relay from
 * before frames takes (it answers a frame with 415, or a relay with its own `invalid_payload`).
 */

import { encodeHandOverFrame, encodeProof, HANDOVER_FRAME_MEDIA_TYPE } from '../scheme/index.js';
import type { HandOverFrameRequest, HandOverRequest } from './handover-schema.js';

/** A request body and its content type. */
export interface HandOverBody {
  readonly headers: { readonly 'content-type': string };
  readonly body: string | Uint8Array<ArrayBuffer>;
}

/** The frame of `request` (`null` when it carries base64 or its fields do not fit), and its JSON. */
export function handOverBodies(request: HandOverRequest | HandOverFrameRequest): {
  readonly frame: HandOverBody | null;
  readonly json: () => HandOverBody;
} {
  const asJson = (body: HandOverRequest): HandOverBody => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (typeof request.proof === 'string') {
    const body = request as HandOverRequest;
    return { frame: null, json: () => asJson(body) };
  }
  const { proof, ...fields } = request;
  let frame: HandOverBody | null = null;
  try {
    frame = {
      headers: { 'content-type': HANDOVER_FRAME_MEDIA_TYPE },
      body: encodeHandOverFrame(fields, proof) as Uint8Array<ArrayBuffer>,
    };
  } catch (error) {
    // Fields too long for a header (or a proof out of bounds, which the node refuses either way).
    if (!(error instanceof RangeError)) throw error;
  }
  return { frame, json: () => asJson({ ...fields, proof: encodeProof(proof) }) };
}
