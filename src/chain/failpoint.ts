/**
 * @module Named crash points for the fault tests (docs/chain.md, "Crash points"): when
 * `PRIV_STARK_FAILPOINT` names a point (several, comma-separated), the process kills itself with
 * SIGKILL the moment it reaches it — no handler runs, nothing is flushed, exactly as `kill -9`
 * would leave it. Unset, each point costs one environment read.
 */

/** The crash points the chain code passes. */
export const FAILPOINTS = [
  'watcher:after-accept',
  'watcher:after-shield',
  'payout:before-send',
  'payout:after-send',
  'payout:after-mined',
] as const;

/** A crash point. */
export type Failpoint = (typeof FAILPOINTS)[number];

/** The environment variable naming the points to crash at. */
export const FAILPOINT_ENV = 'PRIV_STARK_FAILPOINT';

/** Kills this process with SIGKILL if `PRIV_STARK_FAILPOINT` names `point`. */
export function failpoint(point: Failpoint, env: NodeJS.ProcessEnv = process.env): void {
  const named = env[FAILPOINT_ENV];
  if (named === undefined || named === '') return;
  if (named.split(',').some((name) => name.trim() === point)) process.kill(process.pid, 'SIGKILL');
}
