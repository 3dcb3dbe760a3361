/**
 * @module The gas limit every transaction the pool node sends carries: its estimate and half again.
 * An estimate is exact for the state it was made on, and the escrow's work varies with state another
 * sender can change before the transaction is mined — the rolling payout cap, and a deposit's or an
 * acceptance's storage slot going from zero to non-zero (a relayed deposit estimated at 205,280 gas
 * ran out of exactly that when an acceptance was mined between its estimate and its block). Gas
 * left over is not paid for.
 */

/** The gas limit for `estimate`. */
export function gasLimitFor(estimate: bigint): bigint {
  return (estimate * 3n) / 2n;
}
