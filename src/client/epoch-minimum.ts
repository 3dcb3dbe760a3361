/**
 * @module The shortest epoch a wallet accepts from its pool (docs/privacy.md, "Anchors and sync"):
 * a pool advertising a finer grid — 1 ms switches it off — would give each wallet its own anchor,
 * so the wallet refuses it unless it is configured for a test or devnet pool.
 */

/** The shortest epoch a wallet accepts from its pool unless configured otherwise, ms. */
export const MIN_POOL_EPOCH_MS = 10_000;

/**
 * The wallet's minimum epoch: the option (`WalletOptions.minEpochMs`), else — in Node —
 * `PRIV_STARK_MIN_EPOCH_MS`, else {@link MIN_POOL_EPOCH_MS}.
 * @throws RangeError for a value that is not a whole number ≥ 1
 */
export function minEpochMsOf(option: number | undefined): number {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env?.PRIV_STARK_MIN_EPOCH_MS;
  const value = option ?? (env ? Number(env) : MIN_POOL_EPOCH_MS);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`minEpochMs expected a whole number of ms ≥ 1, got ${String(value)}`);
  return value;
}
