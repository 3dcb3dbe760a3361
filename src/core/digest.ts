/**
 * @module The wire type of a digest, shared by every part of the facade.
 */

/** A digest in its wire encoding: `0x` + 64 lowercase hex digits (4 × u64 little-endian). */
export type DigestHex = `0x${string}`;

/** The digest's wire format; canonicity of each element is the core's check (`parseDigest`). */
export const DIGEST_FORMAT = /^0x[0-9a-f]{64}$/;

/** Whether `text` has the digest format (`0x` + 64 lowercase hex); canonicity is the core's check. */
export function isDigestFormat(text: unknown): text is DigestHex {
  return typeof text === 'string' && DIGEST_FORMAT.test(text);
}
