/**
 * @module priv-stark: the core facade (`loadCore()`), shared by the facilitator, wallets and
 * browsers.
 */

export * from './core/index.js';
