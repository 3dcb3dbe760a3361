/**
 * @module The hand-over frame: `POST /proofs` as raw bytes (`application/octet-stream`) instead of
 * JSON, so neither the wallet's side nor the pool node turns an 82 KB proof into 109 KB of base64
 * and back (docs/compact-payments.md, "The hand-over's wire"). One spelling per hand-over:
 *
 *     magic 00 50 53 48 ("\0PSH") · version 01 · header length (u16, big-endian, 2 … 8192)
 *     · header: UTF-8 JSON object of the hand-over's fields but `proof` · the proof's bytes (the rest)
 *
 * The magic's leading zero byte is never the first byte of JSON text, so a relay tells a frame from
 * a JSON body by its first bytes. Sizes are bounded before anything is parsed; the header's fields
 * are then checked by the same schema as the JSON body's (`handover-schema.ts`). Browser-safe: no
 * Node API.
 */

import { HANDOVER_FIELDS_MAX_BYTES, MAX_PROOF_BYTES } from './profile.js';

/** The media type of a hand-over frame. */
export const HANDOVER_FRAME_MEDIA_TYPE = 'application/octet-stream';

/** The frame's first bytes: `\0PSH`. */
const MAGIC = [0x00, 0x50, 0x53, 0x48] as const;
/** The only version there is. */
const VERSION = 1;
/** Magic, version and the header's length. */
const PREFIX_BYTES = MAGIC.length + 1 + 2;

/** Longest header, UTF-8 bytes: the fields' room in a JSON body too (`HANDOVER_FIELDS_MAX_BYTES`). */
export const HANDOVER_FRAME_HEADER_MAX_BYTES = HANDOVER_FIELDS_MAX_BYTES;

/** Longest frame: the prefix, the longest header and the longest proof. */
export const HANDOVER_FRAME_LIMIT_BYTES =
  PREFIX_BYTES + HANDOVER_FRAME_HEADER_MAX_BYTES + MAX_PROOF_BYTES;

/** Names a header never carries: the proof is the frame's tail, and no key may poison a prototype. */
const FORBIDDEN_HEADER_KEYS = new Set(['proof', '__proto__', 'constructor', 'prototype']);

/** A decoded frame, or why not. */
export type HandOverFrameDecoding =
  | {
      readonly ok: true;
      /** The header's fields, unchecked but for being a flat JSON object (the schema checks them). */
      readonly fields: Readonly<Record<string, unknown>>;
      /** The proof's bytes: a view into the frame, not a copy. */
      readonly proof: Uint8Array;
    }
  | { readonly ok: false; readonly reason: 'payload_too_large' | 'invalid_payload' };

/** Whether `bytes` begin as a hand-over frame does (the magic), whatever follows. */
export function isHandOverFrame(bytes: Uint8Array): boolean {
  return MAGIC.every((byte, i) => bytes[i] === byte);
}

/**
 * The frame of a hand-over: `fields` (the JSON body's fields but `proof`) and the proof's bytes.
 * @throws RangeError for a proof of 0 or more than {@link MAX_PROOF_BYTES} bytes, a header over
 *   {@link HANDOVER_FRAME_HEADER_MAX_BYTES}, or fields that name `proof`
 */
export function encodeHandOverFrame(
  fields: Readonly<Record<string, unknown>>,
  proof: Uint8Array,
): Uint8Array {
  if (proof.length === 0 || proof.length > MAX_PROOF_BYTES)
    throw new RangeError(`a hand-over's proof is 1 to ${MAX_PROOF_BYTES} bytes`);
  if (Object.hasOwn(fields, 'proof'))
    throw new RangeError("a frame's header never carries the proof");
  const header = new TextEncoder().encode(JSON.stringify(fields));
  if (header.length < 2 || header.length > HANDOVER_FRAME_HEADER_MAX_BYTES)
    throw new RangeError(`a frame's header is 2 to ${HANDOVER_FRAME_HEADER_MAX_BYTES} bytes`);
  const frame = new Uint8Array(PREFIX_BYTES + header.length + proof.length);
  frame.set(MAGIC, 0);
  frame[MAGIC.length] = VERSION;
  frame[MAGIC.length + 1] = header.length >> 8;
  frame[MAGIC.length + 2] = header.length & 0xff;
  frame.set(header, PREFIX_BYTES);
  frame.set(proof, PREFIX_BYTES + header.length);
  return frame;
}

/**
 * Decodes a frame: lengths first (`payload_too_large` for a frame over
 * {@link HANDOVER_FRAME_LIMIT_BYTES} or a proof over {@link MAX_PROOF_BYTES}), then the magic, the
 * version, the header as strict UTF-8 JSON of one flat object without a `proof` or
 * prototype-poisoning key, and a non-empty proof (`invalid_payload`). Never throws.
 */
export function decodeHandOverFrame(frame: Uint8Array): HandOverFrameDecoding {
  if (frame.length > HANDOVER_FRAME_LIMIT_BYTES) return { ok: false, reason: 'payload_too_large' };
  if (frame.length < PREFIX_BYTES || !isHandOverFrame(frame) || frame[MAGIC.length] !== VERSION)
    return { ok: false, reason: 'invalid_payload' };
  const headerLength = (frame[MAGIC.length + 1]! << 8) | frame[MAGIC.length + 2]!;
  if (headerLength < 2 || headerLength > HANDOVER_FRAME_HEADER_MAX_BYTES)
    return { ok: false, reason: 'invalid_payload' };
  const proofStart = PREFIX_BYTES + headerLength;
  const proofLength = frame.length - proofStart;
  if (proofLength > MAX_PROOF_BYTES) return { ok: false, reason: 'payload_too_large' };
  if (proofLength <= 0) return { ok: false, reason: 'invalid_payload' };
  let fields: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
      frame.subarray(PREFIX_BYTES, proofStart),
    );
    fields = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'invalid_payload' };
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
    return { ok: false, reason: 'invalid_payload' };
  for (const [key, value] of Object.entries(fields)) {
    if (FORBIDDEN_HEADER_KEYS.has(key) || (typeof value === 'object' && value !== null))
      return { ok: false, reason: 'invalid_payload' };
  }
  return {
    ok: true,
    fields: fields as Record<string, unknown>,
    proof: frame.subarray(proofStart),
  };
}
