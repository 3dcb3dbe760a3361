/**
 * @module The wire of a chain-backed pool node's wallet routes (TypeBox), declared once:
 * `GET /chain` (the pool's chain facts), `POST /relay/deposit` (a signed gasless deposit) and
 * `POST /relay/reclaim` (a signed reclaim). Bodies are checked as sent: hex and decimal strings of
 * bounded length, no unknown field.
 */

import { type Static, Type } from 'typebox';

import { errorBody } from './schema-parts.js';

const address = (description: string) =>
  Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description });
const decimal = (description: string, digits = 78) =>
  Type.String({ pattern: `^(0|[1-9][0-9]{0,${digits - 1}})$`, description });
const bytes32 = (description: string) =>
  Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description });
/** A signature: 65 bytes of an EOA, or an ERC-1271 account's (up to 2 KiB). */
const signature = () =>
  Type.String({
    pattern: '^0x([0-9a-fA-F]{2}){1,2048}$',
    description: "the depositor's signature, 0x and hex",
  });

/** What `GET /chain` answers. */
export const ChainFactsSchema = Type.Object(
  {
    chainId: Type.Integer({ minimum: 1 }),
    escrow: address('the escrow (EIP-55)'),
    token: address('the token the escrow holds (EIP-55)'),
    decimals: Type.Integer({ minimum: 0, maximum: 36 }),
    tokenDomain: Type.Object({ name: Type.String(), version: Type.String() }),
    network: Type.String(),
    asset: Type.String(),
    minDeposit: decimal('the smallest deposit, atomic units'),
    reclaimDelay: Type.Integer({ minimum: 0 }),
    relayer: Type.Union([
      Type.Object({
        address: address("the relayer's address"),
        fee: decimal('atomic units the relayer takes per deposit'),
      }),
      Type.Null(),
    ]),
  },
  { description: "what backs the pool: its chain, escrow and token, and the relayer's fee" },
);
/** What `GET /chain` answers. */
export type ChainFactsReply = Static<typeof ChainFactsSchema>;

/** `GET /chain`. */
export const chainFactsSchema = {
  description: "the pool's chain facts (a chain-backed pool only; 404 not_found otherwise)",
  response: { 200: ChainFactsSchema },
};

/** The body of `POST /relay/deposit`. */
export const RelayDepositBodySchema = Type.Object(
  {
    from: address('the depositor'),
    amount: decimal("the deposit ticket's amount, atomic units", 19),
    pre: bytes32("the deposit ticket's precommitment"),
    value: decimal("atomic units authorized: amount plus the relayer's fee", 19),
    validAfter: decimal('unix seconds', 12),
    validBefore: decimal('unix seconds', 12),
    signature: signature(),
  },
  { additionalProperties: false },
);
/** What `POST /relay/deposit` takes. */
export type RelayDepositRequest = Static<typeof RelayDepositBodySchema>;

/** The body of `POST /relay/reclaim`. */
export const RelayReclaimBodySchema = Type.Object(
  {
    index: decimal("the deposit's index in the escrow", 19),
    deadline: decimal('unix seconds', 12),
    signature: signature(),
  },
  { additionalProperties: false },
);
/** What `POST /relay/reclaim` takes. */
export type RelayReclaimRequest = Static<typeof RelayReclaimBodySchema>;

/** What the relay routes answer. */
export const RelayReceiptSchema = Type.Object(
  {
    transaction: Type.String({ description: "the transaction's hash" }),
    mined: Type.Boolean({ description: 'false: sent, not mined within the wait (202)' }),
    depositIndex: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { description: 'sent: mined (200), or not yet (202)' },
);
/** What the relay routes answer. */
export type RelayReceipt = Static<typeof RelayReceiptSchema>;

const relayReplies = {
  200: RelayReceiptSchema,
  202: RelayReceiptSchema,
  '4xx': errorBody('a stable reason of the registry (relay_fee_too_low, deposit_exists, …)'),
  503: errorBody('relay_unavailable: the relayer cannot send now'),
};

/** `POST /relay/deposit`. */
export const relayDepositSchema = {
  description:
    "sends a wallet's signed EIP-3009 ReceiveWithAuthorization through the escrow's depositWithAuthorization; value − amount is the relayer's fee",
  body: RelayDepositBodySchema,
  response: relayReplies,
};

/** `POST /relay/reclaim`. */
export const relayReclaimSchema = {
  description:
    "sends a depositor's signed Reclaim(index, deadline) through the escrow's reclaimWithSignature",
  body: RelayReclaimBodySchema,
  response: relayReplies,
};
