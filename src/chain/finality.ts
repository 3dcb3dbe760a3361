/**
 * @module When an event is final enough to act on: after N confirmations — its block and N − 1 on
 * top of it, so a reorganisation shallower than N blocks never undoes it (default 10) — or, on an
 * OP-stack chain such as Base, once the node tags its block `safe` (its batch is on L1) or
 * `finalized` (that L1 block is final). Parsed here without viem (the command line loads this);
 * `final-block.ts` asks the chain.
 */

/** How finality is decided. */
export type Finality = { readonly confirmations: number } | { readonly tag: 'safe' | 'finalized' };

/** The default: 10 confirmations. */
export const DEFAULT_FINALITY: Finality = { confirmations: 10 };

/** The most confirmations one may ask for. */
export const MAX_CONFIRMATIONS = 10_000;

/**
 * `--confirmations` / `CHAIN_CONFIRMATIONS`: a count (1 to 10000), `safe` or `finalized`.
 * @throws RangeError for anything else
 */
export function parseFinality(text: string): Finality {
  if (text === 'safe' || text === 'finalized') return { tag: text };
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) < 1 || Number(text) > MAX_CONFIRMATIONS)
    throw new RangeError(
      `confirmations expected 1..${MAX_CONFIRMATIONS}, safe or finalized, got ${JSON.stringify(text.slice(0, 20))}`,
    );
  return { confirmations: Number(text) };
}

/** How `/health` names it: `10 confirmations`, `safe`, `finalized`. */
export function describeFinality(finality: Finality): string {
  return 'tag' in finality ? finality.tag : `${finality.confirmations} confirmations`;
}

/** The depth below which a reorganisation changes nothing final (the tags: none stated). */
export function finalityDepth(finality: Finality): number | null {
  return 'tag' in finality ? null : finality.confirmations;
}
