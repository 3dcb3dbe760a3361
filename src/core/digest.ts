/**
 * @module The wire type of a digest, shared by every part of the facade, and its byte codec.
 */

/** A digest in its wire encoding: `0x` + 64 lowercase hex digits (4 × u64 little-endian). */
export type DigestHex = `0x${string}`;

/** The digest's wire format; canonicity of each element is the core's check (`parseDigest`). */
export const DIGEST_FORMAT = /^0x[0-9a-f]{64}$/;

/** Whether `text` has the digest format (`0x` + 64 lowercase hex); canonicity is the core's check. */
export function isDigestFormat(text: unknown): text is DigestHex {
  return typeof text === 'string' && DIGEST_FORMAT.test(text);
}

/** Character code → value of a lowercase hex digit, −1 for any other code below 128. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let d = 0; d < 10; d++) NIBBLE[48 + d] = d;
for (let d = 0; d < 6; d++) NIBBLE[97 + d] = 10 + d;

/** The two hex digits of each byte. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * Writes the 32 bytes of `text` at `out[offset]` and returns true, or returns false when `text` is
 * not in {@link DIGEST_FORMAT} (the bytes written so far are then meaningless). Checked and decoded
 * digit by digit in one pass: a wallet's sync converts millions of digests, and a regex test plus
 * `parseInt` of slices costs several times more.
 */
export function writeDigestBytes(text: string, out: Uint8Array, offset: number): boolean {
  if (text.length !== 66 || text.charCodeAt(0) !== 48 || text.charCodeAt(1) !== 120) return false;
  for (let b = 0; b < 32; b++) {
    const hi = text.charCodeAt(2 + 2 * b);
    const lo = text.charCodeAt(3 + 2 * b);
    const h = hi < 128 ? NIBBLE[hi]! : -1;
    const l = lo < 128 ? NIBBLE[lo]! : -1;
    if ((h | l) < 0) return false;
    out[offset + b] = (h << 4) | l;
  }
  return true;
}

/** The digest of the 32 bytes at `bytes[offset]` (missing bytes read as zero). */
export function digestOfBytes(bytes: Uint8Array, offset = 0): DigestHex {
  let out = '0x';
  for (let i = offset; i < offset + 32; i++) out += HEX[bytes[i] ?? 0]!;
  return out as DigestHex;
}
