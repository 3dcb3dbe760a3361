/**
 * @module The `chain` part of the pool node's `GET /health` in a pool backed by a chain: its
 * deposit source's status (`deposit-source.ts`) — what backs the pool, how far the watcher has
 * read, its last failure, deposits by state, each hot key's gas against its minimum. Everything in
 * it is public on the chain already. The route answers 200 whatever the chain's state.
 */

import { Type } from 'typebox';

import type { DepositSourceStatus } from './deposit-source.js';

const nullableInteger = () => Type.Union([Type.Integer(), Type.Null()]);

/** The status as the route serialises it. */
export const ChainStatusSchema = Type.Object(
  {
    status: Type.Union([
      Type.Literal('starting'),
      Type.Literal('ok'),
      Type.Literal('lagging'),
      Type.Literal('reorg_beyond_depth'),
    ]),
    chainId: Type.Integer(),
    escrow: Type.String(),
    token: Type.String(),
    finality: Type.String(),
    head: nullableInteger(),
    scanned: Type.Integer(),
    final: nullableInteger(),
    lagBlocks: Type.Integer(),
    lagSeconds: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()]),
    deposits: Type.Record(Type.String(), Type.Integer()),
    reorgs: Type.Integer(),
    active: Type.Boolean(),
    keys: Type.Array(
      Type.Object({
        role: Type.String(),
        address: Type.String(),
        balance: Type.Union([Type.String(), Type.Null()]),
        minimum: Type.String(),
        sufficient: Type.Boolean(),
      }),
    ),
  },
  { description: 'the deposit watcher of a chain pool; absent for the devnet pool' },
);

/** A copy of `status` for the reply. */
export function chainStatusBody(status: DepositSourceStatus) {
  return {
    ...status,
    keys: status.keys.map((key) => ({ ...key })),
    deposits: { ...status.deposits },
  };
}
