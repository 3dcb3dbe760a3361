/**
 * @module The `chain` part of `GET /health` in a pool backed by an escrow on a chain: what backs
 * the pool (chain id, escrow, token), how the deposit watcher follows it — `ok`, `starting`,
 * `lagging` (with how many blocks and seconds behind), `reorg_beyond_depth` — and each hot key's
 * gas balance against the minimum below which its sender stops. The route answers 200 whatever
 * the chain's state: payments do not depend on it.
 */

import { type Static, Type } from 'typebox';

/** The chain backing a network (`networks[].chain`). */
export const NetworkChainSchema = Type.Object(
  {
    chainId: Type.Integer(),
    escrow: Type.String({ description: 'the escrow contract (EIP-55)' }),
    token: Type.String({ description: 'the ERC-20 it holds (EIP-55)' }),
  },
  { description: 'what backs a chain pool; absent for the devnet pool' },
);

/** A hot key's gas. */
const GasKeySchema = Type.Object({
  role: Type.String(),
  address: Type.String(),
  balance: Type.Union([Type.String(), Type.Null()], { description: 'wei, null before read' }),
  minimum: Type.String({ description: 'wei: below it the key’s sender stops' }),
  sufficient: Type.Boolean(),
});

/** `/health`'s `chain`. */
export const ChainHealthSchema = Type.Object(
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
    finality: Type.String({ description: '`<n> confirmations`, `safe` or `finalized`' }),
    head: Type.Union([Type.Integer(), Type.Null()]),
    scanned: Type.Integer({ description: 'the last block whose escrow events were read' }),
    final: Type.Union([Type.Integer(), Type.Null()]),
    lagBlocks: Type.Integer(),
    lagSeconds: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'the last poll’s failure (rpc_unreachable, rpc_malformed, …)',
    }),
    deposits: Type.Record(Type.String(), Type.Integer(), {
      description: 'deposits by state',
    }),
    reorgs: Type.Integer({ description: 'reorganisations seen that undid nothing shielded' }),
    active: Type.Boolean({
      description: 'whether this instance acts (holds the watcher’s lease) or stands by',
    }),
    keys: Type.Array(GasKeySchema),
  },
  { description: 'the deposit watcher of a chain pool' },
);

type ChainHealthBody = Static<typeof ChainHealthSchema>;

/** What the health route shows of the chain (the deposit watcher's status). */
export type ChainHealth = Readonly<Omit<ChainHealthBody, 'keys' | 'deposits'>> & {
  readonly keys: readonly Readonly<ChainHealthBody['keys'][number]>[];
  readonly deposits: Readonly<Record<string, number>>;
};

/** The reply's copy of a status. */
export function chainBody(health: ChainHealth): ChainHealthBody {
  return {
    ...health,
    keys: health.keys.map((key) => ({ ...key })),
    deposits: { ...health.deposits },
  };
}
