/**
 * @module The MCP tools' schemas (zod, converted to JSON Schema by the SDK): the shapes their
 * inputs share — a request to a merchant, an amount in atomic units, a note's commitment, a
 * withdrawal destination — and those of their structured results, as views.ts declares them.
 */

import { z } from 'zod';

import { MAX_DESTINATION_CHARS } from '../scheme/index.js';
import { MAX_HEADER_VALUE_CHARS, MAX_REQUEST_BODY_CHARS, MAX_URL_CHARS } from './request.js';
import type { PaymentView, PolicyView, TransitionRateView, UsageView } from './views.js';

/** An amount in atomic units: a decimal integer string. */
export const atomic = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,18})$/, 'atomic units: a decimal integer string');
/** A policy allow-list: entries, or `"*"`. */
const allowList = z.union([z.array(z.string()), z.literal('*')]);
/** A note's commitment, as `get_balance` lists it. */
export const commitment = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/, "a note's commitment: 0x + 64 lowercase hex digits")
  .describe("A note's commitment, as get_balance lists it in spendable_notes");
/** A withdrawal's destination: a CAIP-10 account id. */
export const destination = z
  .string()
  .max(MAX_DESTINATION_CHARS)
  .describe(
    'A CAIP-10 account id exactly as the policy lists it: eip155:<chain id>:<EIP-55 checksummed address>, or solana:<reference>:<base58 address>',
  );
/** Where a transition's two new notes went in the pool's tree. */
export const outputIndexes = z
  .array(z.number().int())
  .length(2)
  .describe("The leaves of the transition's two new notes in the pool's tree");
/** {@link TransitionRateView}. */
export const rateShape = z
  .object({ used_last_minute: z.number().int(), limit_per_minute: z.number().int() })
  .describe('Merges and splits this server made in the last minute, and its limit');

/** The request to a merchant (`FetchInput`): `quote_payment`'s input, and `pay_and_fetch`'s. */
export const requestShape = {
  url: z.string().max(MAX_URL_CHARS).describe('The http(s) URL of the paid resource'),
  method: z
    .enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
    .optional()
    .describe('HTTP method (default GET)'),
  headers: z
    .record(z.string().max(MAX_HEADER_VALUE_CHARS))
    .optional()
    .describe('Extra request headers (not the payment headers, which the x402 client writes)'),
  body: z.string().max(MAX_REQUEST_BODY_CHARS).optional().describe('Request body (not for GET)'),
};

/** {@link UsageView}. */
export const usageShape = z.object({
  counted_24h: atomic.describe(
    'Atomic units counted against maxPer24h: settled in the last 24 hours, or reserved/pending',
  ),
  remaining_24h: atomic,
  unresolved_payments: z.number().int(),
});

/** {@link PaymentView}. */
export const paymentShape = z.object({
  id: z.string(),
  kind: z
    .enum(['payment', 'withdrawal'])
    .describe('withdrawal: an exit out of the pool to pay_to, a CAIP-10 account id'),
  status: z.enum(['reserved', 'pending', 'settled', 'expired']),
  amount: atomic,
  asset: z.string(),
  network: z.string(),
  pay_to: z.string(),
  host: z.string().nullable(),
  url: z.string().nullable(),
  resource_id: z.string().nullable(),
  created_at: z.string(),
  expiry: z.string().nullable(),
  settlement_id: z
    .string()
    .nullable()
    .describe("The settlement in the pool's log; null until the pool shows it"),
});

/** {@link PolicyView}, as an output schema's fields. */
export const policyShape = {
  policy: z.object({
    max_per_payment: atomic,
    max_per_24h: atomic,
    hosts: allowList,
    recipients: allowList,
    networks: z.array(z.string()),
    assets: z.array(z.string()),
    withdrawal_destinations: z
      .array(z.string())
      .describe('CAIP-10 account ids withdraw may pay out to; empty: no withdrawal allowed'),
  }),
  usage: usageShape,
};

/** A 402's payment option (`PaymentOption`). */
export const optionShape = z.object({
  scheme: z.string(),
  network: z.string(),
  asset: z.string(),
  amount: z.string(),
  pay_to: z.string(),
  max_timeout_seconds: z.number().int(),
  resource_id: z.string().nullable(),
  payment_flow: z.string().nullable(),
});

/** A refusal as a quote shows it, or `null`. */
export const refusalShape = z
  .object({ code: z.string(), rule: z.string().nullable(), message: z.string() })
  .nullable();
