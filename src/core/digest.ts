/**
 * @module The wire type of a digest, shared by every part of the facade.
 */

/** A digest in its wire encoding: `0x` + 64 lowercase hex digits (4 × u64 little-endian). */
export type DigestHex = `0x${string}`;
