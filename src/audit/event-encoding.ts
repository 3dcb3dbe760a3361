/**
 * @module The canonical encoding of one public log event, version 1 (docs/audit.md, "Event
 * encoding"): what the log digest hashes, so the pool node that attests and every auditor that
 * rebuilds the log from its public pages hash the same bytes. Fixed field order per kind, integers
 * big-endian, amounts as 128-bit integers, digests as their 32 bytes, text as its UTF-8 bytes after
 * a 32-bit length. Anything off that shape — a digest that is not 32 bytes of hex, an amount out of
 * range, a position or time that is not a safe integer — is refused, never encoded loosely.
 */

import { hexToBytes } from '@noble/hashes/utils';

import type { PoolEvent } from '../ledger/store.js';

/** The encoding's version, its first byte: a new field or order is a new version. */
export const EVENT_ENCODING_VERSION = 1;

/** Each kind's tag, the encoding's second byte. */
export const EVENT_KIND_TAGS = {
  deposit: 1,
  settlement: 2,
  transition: 3,
  withdrawal: 4,
  refund: 5,
} as const satisfies Record<PoolEvent['kind'], number>;

/** An event that cannot be encoded: which field, and why. */
export class EventEncodingError extends Error {
  override readonly name = 'EventEncodingError';
  readonly code = 'event_unencodable';
}

const MAX_U128 = (1n << 128n) - 1n;
const UTF8 = new TextEncoder();

/** Bytes appended in order. */
class Writer {
  private readonly parts: Uint8Array[] = [];
  private length = 0;

  byte(value: number): void {
    this.push(Uint8Array.of(value));
  }

  u64(field: string, value: number): void {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new EventEncodingError(`${field}: expected a non-negative safe integer`);
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(value));
    this.push(bytes);
  }

  u128(field: string, decimal: string): void {
    if (!/^(0|[1-9][0-9]{0,38})$/.test(decimal))
      throw new EventEncodingError(`${field}: expected a decimal amount`);
    const value = BigInt(decimal);
    if (value > MAX_U128) throw new EventEncodingError(`${field}: above 2^128 - 1`);
    const bytes = new Uint8Array(16);
    const view = new DataView(bytes.buffer);
    view.setBigUint64(0, value >> 64n);
    view.setBigUint64(8, value & 0xffff_ffff_ffff_ffffn);
    this.push(bytes);
  }

  digest(field: string, hex: string): void {
    if (!/^0x[0-9a-f]{64}$/.test(hex))
      throw new EventEncodingError(`${field}: expected 0x and 64 lowercase hex digits`);
    this.push(hexToBytes(hex.slice(2)));
  }

  text(field: string, value: string): void {
    if (typeof value !== 'string') throw new EventEncodingError(`${field}: expected text`);
    const bytes = UTF8.encode(value);
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, bytes.length);
    this.push(length);
    this.push(bytes);
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  private push(bytes: Uint8Array): void {
    this.parts.push(bytes);
    this.length += bytes.length;
  }
}

/** The two spent notes and two outputs a transition or a withdrawal carries, in order. */
function pairFields(w: Writer, event: Extract<PoolEvent, { kind: 'transition' | 'withdrawal' }>) {
  for (const i of [0, 1] as const) w.digest(`nullifiers[${i}]`, event.nullifiers[i]);
  for (const i of [0, 1] as const) w.digest(`outputs[${i}]`, event.outputs[i]);
  for (const i of [0, 1] as const) w.u64(`outputIndexes[${i}]`, event.outputIndexes[i]);
  for (const i of [0, 1] as const) w.text(`memo[${i}]`, event.memo[i]);
}

/**
 * The version-1 bytes of `event` as the public log shows it (`id` its position, `time` its
 * checkpoint's).
 * @throws EventEncodingError when a field is off its shape
 */
export function encodeEvent(event: PoolEvent): Uint8Array {
  const w = new Writer();
  w.byte(EVENT_ENCODING_VERSION);
  const tag = EVENT_KIND_TAGS[event.kind];
  if (tag === undefined) throw new EventEncodingError(`kind: ${String(event.kind)} is not one`);
  w.byte(tag);
  w.u64('id', event.id);
  w.u64('time', event.time);
  switch (event.kind) {
    case 'deposit':
      w.u128('amount', event.amount);
      w.digest('commitment', event.commitment);
      w.u64('index', event.index);
      break;
    case 'settlement':
      w.digest('settlementId', event.settlementId);
      w.digest('nullifier', event.nullifier);
      w.digest('change', event.change);
      w.u64('changeIndex', event.changeIndex);
      w.text('recipient', event.recipient);
      w.u128('amount', event.amount);
      w.digest('recipientNote', event.recipientNote);
      w.u64('recipientIndex', event.recipientIndex);
      break;
    case 'transition':
      w.digest('transitionId', event.transitionId);
      pairFields(w, event);
      break;
    case 'withdrawal':
      w.digest('withdrawalId', event.withdrawalId);
      pairFields(w, event);
      w.u128('amount', event.amount);
      w.text('destination', event.destination);
      w.digest('refund', event.refund);
      break;
    case 'refund':
      w.digest('withdrawalId', event.withdrawalId);
      w.digest('nullifier', event.nullifier);
      w.u128('amount', event.amount);
      w.digest('commitment', event.commitment);
      w.u64('index', event.index);
      break;
  }
  return w.bytes();
}
