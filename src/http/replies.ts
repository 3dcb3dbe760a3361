/**
 * @module The x402 reply bodies of `/verify` and `/settle` — the only shapes this listener sends
 * for them, whatever happened: `{ isValid, invalidReason?, invalidMessage? }` and
 * `{ success, errorReason?, errorMessage?, transaction, network }`. `payer` is never sent.
 */

import type { SettleOutcome, VerifyOutcome } from '../facilitator/index.js';
import {
  messageOf,
  type Reason,
  type SettleResponse,
  statusOf,
  type VerifyResponse,
} from '../scheme/index.js';

/** Which reply shape a request gets. */
export type ReplyKind = 'verify' | 'settle';

/** A status and its x402 body. */
export interface Reply {
  readonly status: number;
  readonly reason: Reason | null;
  readonly body: VerifyResponse | SettleResponse;
}

/** The shape for a path: `/settle` gets settle bodies, every other path verify bodies. */
export function replyKindOf(url: string): ReplyKind {
  const path = url.split('?', 1)[0] ?? '';
  return path === '/settle' || path.startsWith('/settle/') ? 'settle' : 'verify';
}

/** The failure reply of `reason` in the shape of `kind`. */
export function failureReply(
  kind: ReplyKind,
  reason: Reason,
  settle: { transaction?: string; network?: string } = {},
): Reply {
  const status = statusOf(reason);
  if (kind === 'verify')
    return {
      status,
      reason,
      body: { isValid: false, invalidReason: reason, invalidMessage: messageOf(reason) },
    };
  return {
    status,
    reason,
    body: {
      success: false,
      errorReason: reason,
      errorMessage: messageOf(reason),
      transaction: settle.transaction ?? '',
      network: settle.network ?? '',
    },
  };
}

/** The reply of a verify verdict. */
export function verifyReply(outcome: VerifyOutcome): Reply {
  return outcome.ok
    ? { status: 200, reason: null, body: { isValid: true } }
    : failureReply('verify', outcome.reason);
}

/** The reply of a settle verdict. */
export function settleReply(outcome: SettleOutcome): Reply {
  if (outcome.ok)
    return {
      status: 200,
      reason: null,
      body: { success: true, transaction: outcome.transaction, network: outcome.network },
    };
  return failureReply('settle', outcome.reason, outcome);
}
