/**
 * @module What the pool node needs from the chain to serve wallets in a pool backed by an escrow
 * (docs/chain.md, "Using it"): the pool's chain facts — the chain, the escrow, its token and the
 * token's EIP-712 domain, and the relayer's fee — and a relayer that sends a wallet's signed
 * deposit (EIP-3009 `receiveWithAuthorization` through the escrow's `depositWithAuthorization`) or
 * signed reclaim, so an agent that holds no ETH can fund its wallet. The chain's side is
 * `src/chain/deposit-relay.ts`; the routes are `chain-routes.ts`.
 */

import type { ChainFactsReply, RelayDepositRequest, RelayReclaimRequest } from './chain-schemas.js';

/**
 * What backs the pool, as a wallet reads it before it pays into the escrow (`GET /chain`): the
 * chain, the escrow and its token (EIP-55), the token's decimals and the EIP-712 domain a deposit's
 * authorization is signed under, the pool's network id and asset, the escrow's minimum deposit and
 * reclaim delay, and the relayer — its address and fee — when the pool runs one.
 */
export type ChainFacts = ChainFactsReply;

/** The token's EIP-712 domain name and version (Base's USDC: `USD Coin`, `2`). */
export type TokenDomain = ChainFactsReply['tokenDomain'];

/**
 * A wallet's signed gasless deposit, as it travels: `value` is `amount` plus the relayer's fee, the
 * window `validAfter` .. `validBefore` (unix seconds, exclusive at both ends as EIP-3009 has it),
 * `signature` the depositor's of `ReceiveWithAuthorization`.
 */
export type DepositAuthorization = RelayDepositRequest;

/** A depositor's signed `Reclaim(index, deadline)` under the escrow's EIP-712 domain. */
export type ReclaimAuthorization = RelayReclaimRequest;

/**
 * Why the relayer sent nothing (its stable reason; the registry gives status and message):
 * `relay_fee_too_low` the authorized value leaves less than the advertised fee;
 * `deposit_exists` this ticket (amount, pre) was deposited already — whichever path, once;
 * `authorization_invalid` the token refuses the signature (not the depositor's, another domain, a
 * nonce used or cancelled); `authorization_expired` outside its validity window;
 * `deposit_refused` the escrow or the token refuses the deposit (below the minimum, a
 * precommitment no note holds, too little balance, a pause, a blacklist);
 * `reclaim_refused` the escrow refuses the reclaim (not reclaimable yet or any more, not the
 * depositor's signature, its deadline passed, no such deposit);
 * `relay_unavailable` the relayer cannot send now (the RPC, its gas): retry later.
 */
export type RelayReason =
  | 'relay_fee_too_low'
  | 'deposit_exists'
  | 'authorization_invalid'
  | 'authorization_expired'
  | 'deposit_refused'
  | 'reclaim_refused'
  | 'relay_unavailable';

/** What relaying came to. */
export type RelayResult =
  | {
      readonly ok: true;
      /** The transaction's hash. */
      readonly transaction: string;
      /** Whether it was mined (and succeeded) before the answer; `false`: sent, not mined yet. */
      readonly mined: boolean;
      /** The deposit's index in the escrow (a deposit, once mined). */
      readonly depositIndex?: number;
    }
  | {
      readonly ok: false;
      readonly reason: RelayReason;
      /** What the chain said, in short (a revert's name or string), never a key. */
      readonly detail?: string;
    };

/** The chain behind a chain-backed pool node, for wallets. */
export interface DepositRelay {
  /** The pool's chain facts (read at start; never throws). */
  facts(): ChainFacts;
  /** Sends a wallet's signed deposit as the relayer (fee checked first; nothing sent when refused). */
  deposit(authorization: DepositAuthorization): Promise<RelayResult>;
  /** Sends a depositor's signed reclaim (the funds go to the depositor; the relayer takes nothing). */
  reclaim(authorization: ReclaimAuthorization): Promise<RelayResult>;
}
