/**
 * @module What runs in the background for a wallet — its epoch follower, its backing check — kept
 * by wallet so that `Wallet.stop` ends them and `Wallet.backingCheck` reads the check, without the
 * wallet importing the modules that start them (they name the wallet: an import circle).
 */

import type { BackingCheckResult } from './backing-result.js';

/** A task that runs in the background until stopped. */
export interface BackgroundTask {
  stop(): Promise<void>;
}

/** A wallet's background tasks. */
export interface BackgroundTasks {
  follower?: BackgroundTask;
  backing?: BackgroundTask & { readonly last: BackingCheckResult | null };
}

const registry = new WeakMap<object, BackgroundTasks>();

/** `wallet`'s background tasks (an empty set at first), for the modules that start them. */
export function backgroundTasks(wallet: object): BackgroundTasks {
  let tasks = registry.get(wallet);
  if (tasks === undefined) {
    tasks = {};
    registry.set(wallet, tasks);
  }
  return tasks;
}

/** Stops `wallet`'s background tasks (each after its run under way). */
export async function stopBackground(wallet: object): Promise<void> {
  const tasks = registry.get(wallet);
  await Promise.all([tasks?.follower?.stop(), tasks?.backing?.stop()]);
}
