/**
 * @module The identifiers an operator reads in a JSON body or a hand-over frame, found wherever they sit (the
 * facilitator's `/settle` nests them in the payload, the pool node's writes carry them at the top):
 * anchors (`root`), nullifiers, proof references, amounts, recipients and exit destinations, and
 * the read cursors of a reply (`next`). Anything else — a proof's bytes — is left out.
 */

import { decodeHandOverFrame, isHandOverFrame } from '../../src/scheme/index.js';

/** What one body names (every list possibly empty). */
export interface BodyFields {
  readonly roots: string[];
  readonly nullifiers: string[];
  readonly references: string[];
  readonly amounts: string[];
  readonly recipients: string[];
  readonly destinations: string[];
  readonly commitments: string[];
  /** A read's reply: where the next read starts (`next`). */
  readonly cursors: string[];
}

const WANTED: Record<string, keyof BodyFields> = {
  root: 'roots',
  nullifier: 'nullifiers',
  nullifiers: 'nullifiers',
  proofRef: 'references',
  reference: 'references',
  amount: 'amounts',
  exit: 'amounts',
  payTo: 'recipients',
  recipient: 'recipients',
  destination: 'destinations',
  commitment: 'commitments',
  pre: 'commitments',
  next: 'cursors',
};

/** An empty set of fields. */
export function noFields(): BodyFields {
  return {
    roots: [],
    nullifiers: [],
    references: [],
    amounts: [],
    recipients: [],
    destinations: [],
    commitments: [],
    cursors: [],
  };
}

function walk(value: unknown, into: BodyFields, depth: number): void {
  if (depth > 8 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) walk(v, into, depth + 1);
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    const slot = WANTED[key];
    if (slot !== undefined) {
      const list = Array.isArray(v) ? v : [v];
      for (const item of list)
        if (typeof item === 'string' || typeof item === 'number') {
          const text = String(item);
          if (!into[slot].includes(text)) into[slot].push(text);
        }
    }
    if (typeof v === 'object') walk(v, into, depth + 1);
  }
}

/**
 * The fields of a JSON body or of a hand-over frame's header (`scheme/handover-frame.ts`: the
 * operator reads a frame as easily as JSON); none when it is neither.
 */
export function bodyFields(body: Buffer | string): BodyFields {
  const fields = noFields();
  if (typeof body !== 'string' && isHandOverFrame(body)) {
    const frame = decodeHandOverFrame(body);
    if (frame.ok) walk(frame.fields, fields, 0);
    return fields;
  }
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.length === 0 || (text[0] !== '{' && text[0] !== '[')) return fields;
  try {
    walk(JSON.parse(text), fields, 0);
  } catch {
    // not JSON: nothing named
  }
  return fields;
}
