/**
 * @module API keys (priv-stark-v1.md §5): `Authorization: Bearer <key>` on `/verify` and `/settle`,
 * checked in an `onRequest` hook — before the body is read or parsed, so anonymous junk costs
 * nothing. Keys are held only as SHA-256 hashes and compared in constant time against every
 * configured hash (no early exit). Each key may carry a policy.
 */

import { createHash, timingSafeEqual } from 'node:crypto';

import type { CallerPolicy } from '../facilitator/index.js';

/** A per-key rate limit. */
export interface RateLimitPolicy {
  /** Requests allowed per window. */
  readonly max: number;
  /** Window length, ms. */
  readonly timeWindowMs: number;
}

/** What a key may do: the facilitator's policy plus a rate limit. */
export interface KeyPolicy extends CallerPolicy {
  readonly rateLimit?: RateLimitPolicy | undefined;
}

/** A configured key. */
export interface ApiKeyEntry {
  /** A label for logs and metrics (never the key). */
  readonly id: string;
  /** SHA-256 of the key, 32 bytes. */
  readonly sha256: Buffer;
  readonly policy: KeyPolicy;
}

/** Who is calling. */
export interface Caller {
  readonly id: string;
  readonly policy: KeyPolicy;
}

/** The caller when auth is off (`--insecure-no-auth`). */
export const ANONYMOUS: Caller = { id: 'anonymous', policy: {} };

/** SHA-256 of a key, as stored. */
export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

/** The token of an `Authorization: Bearer <token>` header, or `null`. */
export function bearerToken(header: string | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = BEARER.exec(header);
  return match ? (match[1] ?? null) : null;
}

/** The configured keys. */
export class ApiKeys {
  private readonly entries: readonly ApiKeyEntry[];

  constructor(entries: readonly ApiKeyEntry[]) {
    for (const entry of entries) {
      if (entry.sha256.length !== 32)
        throw new RangeError(
          `"sha256" of key ${entry.id} expected 32 bytes, got length=${entry.sha256.length}`,
        );
    }
    this.entries = entries;
  }

  /** Keys configured. */
  get size(): number {
    return this.entries.length;
  }

  /**
   * The caller presenting `key`, or `null`. Compares the key's hash with every configured hash in
   * constant time, whatever matches.
   */
  find(key: string): Caller | null {
    const hash = hashKey(key);
    let found: ApiKeyEntry | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(hash, entry.sha256) && found === null) found = entry;
    }
    return found ? { id: found.id, policy: found.policy } : null;
  }
}

/** How requests are authenticated. */
export type AuthMode = { readonly mode: 'keys'; readonly keys: ApiKeys } | { readonly mode: 'off' };

/** Whether a listen host is loopback (where `--insecure-no-auth` is allowed). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}
